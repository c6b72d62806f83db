/**
 * Every function as it deploys (lib/functions.ts, bundled by lib/function-bundles.ts): its size
 * (with the AWS SDK it carries, and without), and its cold initialisation: the bundle imported in a
 * fresh `node` process in its own folder (median of 10; the time of the import itself, not of
 * starting node), with the AWS SDK clients that import evaluates.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { bundleFunctions, clientsAtStart, coldStart } from '#lib/function-bundles.ts';
import { allFunctions } from '#lib/functions.ts';
import { buildConsole } from '../console/build.ts';

const root = path.resolve(import.meta.dirname, '..');

export async function benchFunctions(samples = 10) {
  const base = path.join(root, '.bench', 'functions');
  rmSync(base, { recursive: true, force: true });
  buildConsole();
  const rows: {
    name: string;
    kind: string;
    bytes: number;
    bytesBesideSdk: number;
    initMs: number;
    clients: string[];
    parquet: boolean;
  }[] = [];
  for (const built of await bundleFunctions(allFunctions(), base)) {
    const times = Array.from({ length: samples }, () => coldStart(built.outfile).initMs).sort((a, b) => a - b);
    rows.push({
      name: built.fn.name,
      kind: built.fn.kind,
      bytes: built.bytes,
      bytesBesideSdk: built.bytesBesideSdk,
      initMs: times[Math.floor(times.length / 2)] as number,
      clients: clientsAtStart(built),
      parquet: Object.keys(built.inputs).some(
        (input) => input.includes('node_modules/parquet-wasm') || input.includes('node_modules/apache-arrow'),
      ),
    });
  }
  return { functions: rows };
}
