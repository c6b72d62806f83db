/**
 * Where the local service finds its own modules: the stand-ins it forks and the threads it runs
 * functions in, each named by its repository path
 * (`local/sqs-stand-in.ts`, `local/function-host.ts`). The functions themselves run from the cloud
 * assembly's bundles (local/lambda-sandbox.ts).
 *
 * `npm start` runs the TypeScript sources through tsx. The integration tests start the service about
 * a dozen times per run, and tsx's loader cost seconds of CPU at every start; so they build it once
 * (test/support/local-build.ts) and name the build's directory in TRIBUTARY_LOCAL_BUILD. There each
 * module is at the same path with `.js`, and plain node runs it.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

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

/**
 * Runs a module in a worker thread of this process. From the sources, the thread registers tsx
 * first: on Node 20 a thread inherits neither the loader hooks nor the `--import` that set them.
 */
export function startThread(entry: string, options: WorkerOptions): Worker {
  const module = localModule(entry, typeof options.env === 'object' ? options.env : process.env);
  if (module.execArgv.length === 0) return new Worker(module.file, options);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const file = JSON.stringify(pathToFileURL(module.file).href);
  const bootstrap = `import(${tsx}).then(({ register }) => { register(); return import(${file}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
