/**
 * Every function built as it deploys (lib/bundling.ts), and what its bundle does when Lambda
 * initialises it. The bundle tests check the properties; `npm run bench functions` measures the times.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { type Bundle, buildBundles } from './bundling.ts';
import { bundleSource } from './constructs/service-function.ts';
import type { FunctionDeclaration } from './functions.ts';

export interface FunctionBundle extends Bundle {
  fn: FunctionDeclaration;
  /** The bundle's index.js. */
  outfile: string;
}

/**
 * Bundles every function into `directory/<index>/` (index.js, its map, its assets) in one build, as
 * the stack does (tracing off). The directory need not be inside the repository: nothing in a
 * bundle resolves from node_modules.
 */
export async function bundleFunctions(functions: FunctionDeclaration[], directory: string): Promise<FunctionBundle[]> {
  const bundles = buildBundles(
    functions.map((fn) => bundleSource(fn, false)),
    directory,
  );
  return bundles.map((bundle, index) => ({
    ...bundle,
    fn: functions[index] as FunctionDeclaration,
    outfile: path.join(bundle.directory, 'index.js'),
  }));
}

/** `@aws-sdk/client-dynamodb` → `client-dynamodb`, for any file of an SDK client package. */
const clientPattern = /node_modules\/@aws-sdk\/(client-[\w-]+)\//;

/**
 * The AWS SDK clients (`client-dynamodb`, `client-sqs`, …) a bundle evaluates when it is loaded:
 * those reachable from its entry through static imports. A client behind a dynamic import is
 * loaded at its first use.
 */
export function clientsAtStart(bundle: Pick<Bundle, 'loadedAtStart'>): string[] {
  return [...new Set(bundle.loadedAtStart.flatMap((input) => clientPattern.exec(input)?.[1] ?? []))].sort();
}

/**
 * Imports a bundled function in a fresh node process, as Lambda's init phase does, and times the
 * import (not the start of node). The process runs in the bundle's folder with no AWS SDK anywhere
 * it could resolve one from.
 */
export function coldStart(outfile: string): { initMs: number } {
  const script = [
    'const t = performance.now();',
    `require(${JSON.stringify(outfile)});`,
    'process.stdout.write(JSON.stringify({ initMs: performance.now() - t }));',
  ].join('\n');
  const output = execFileSync(process.execPath, ['-e', script], {
    cwd: path.dirname(outfile),
    env: {
      PATH: process.env.PATH,
      AWS_REGION: 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    encoding: 'utf8',
  });
  return JSON.parse(output) as { initMs: number };
}
