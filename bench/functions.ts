/**
 * Every function as it deploys (lib/functions.ts, bundled by lib/function-bundles.ts): its size,
 * and its cold initialisation: the bundle imported in a fresh `node` process (median of 10; the
 * time of the import itself, not of starting node), with the AWS SDK clients that import loaded.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleFunctions, coldStart } from '#lib/function-bundles.ts';
import { allFunctions } from '#lib/functions.ts';
import { buildConsole } from '../console/build.ts';

const root = path.resolve(import.meta.dirname, '..');

export async function benchFunctions(samples = 10) {
  const base = path.join(root, '.bench', 'functions');
  rmSync(base, { recursive: true, force: true });
  buildConsole();
  const rows: { name: string; kind: string; bytes: number; initMs: number; clients: string[]; parquet: boolean }[] = [];
  for (const built of await bundleFunctions(allFunctions(), base)) {
    const starts = Array.from({ length: samples }, () => coldStart(built.outfile));
    const times = starts.map((start) => start.initMs).sort((a, b) => a - b);
    rows.push({
      name: built.fn.name,
      kind: built.fn.kind,
      bytes: built.bytes,
      initMs: times[Math.floor(times.length / 2)] as number,
      clients: starts[0]?.clients ?? [],
      parquet: built.inputs.some(
        (input) => input.includes('node_modules/parquet-wasm') || input.includes('node_modules/apache-arrow'),
      ),
    });
  }
  // The floor under every function that reads the table: loading the SDK's DynamoDB client itself.
  const floor = path.join(base, 'dynamodb-client-alone');
  mkdirSync(floor, { recursive: true });
  writeFileSync(path.join(floor, 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(
    path.join(floor, 'index.js'),
    "require('@aws-sdk/client-dynamodb');\nrequire('@aws-sdk/lib-dynamodb');\n",
  );
  const floorTimes = Array.from({ length: samples }, () => coldStart(path.join(floor, 'index.js')).initMs).sort(
    (a, b) => a - b,
  );
  return { functions: rows, dynamoDbClientMs: floorTimes[Math.floor(floorTimes.length / 2)] as number };
}
