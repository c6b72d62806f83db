/**
 * Where the local service finds its own modules: the stand-ins it forks and the handler modules it
 * imports, each named by its repository path (`local/sqs-stand-in.ts`, `functions/jobs/run.ts`).
 *
 * `npm start` runs the TypeScript sources through tsx. The integration tests start the service about
 * a dozen times per run, and tsx's loader cost seconds of CPU at every start; so they build it once
 * (test/support/local-build.ts) and name the build's directory in TRIBUTARY_LOCAL_BUILD. There each
 * module is at the same path with `.js`, and plain node runs it.
 */
import path from 'node:path';

export interface LocalModule {
  file: string;
  /** What node needs to run it. */
  execArgv: string[];
}

export function localModule(entry: string, env: NodeJS.ProcessEnv = process.env): LocalModule {
  const build = env.TRIBUTARY_LOCAL_BUILD;
  if (build) return { file: path.join(build, entry.replace(/\.ts$/, '.js')), execArgv: [] };
  return { file: path.resolve(import.meta.dirname, '..', entry), execArgv: ['--import', 'tsx'] };
}
