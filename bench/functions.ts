/**
 * Every function as it deploys: bundled with the stack's own esbuild settings (lib/bundling.ts),
 * its size, and its cold initialisation: the bundle imported in a fresh `node` process (median of
 * 10; the time of the import itself, not of starting node), with the AWS SDK clients that import
 * loaded.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { esbuildSettings } from '#lib/bundling.ts';
import { notFoundRoute, type RouteSpec, routes } from '#shared/routes.ts';
import { type Access, consumers, schedules } from '#shared/topology.ts';
import { buildConsole } from '../console/build.ts';

const root = path.resolve(import.meta.dirname, '..');

export interface FunctionEntry {
  name: string;
  entry: string;
  kind: 'api' | 'consumer' | 'schedule' | 'deploy';
  assets: string[];
  /** What the stack lets it touch; API-key routes may also read the key store. */
  access: Access;
  authenticated: boolean;
}

export function allFunctions(): FunctionEntry[] {
  return [
    ...(Object.entries(routes) as [string, RouteSpec][]).map(([key, spec]) => ({
      name: key,
      entry: spec.entry,
      kind: 'api' as const,
      assets: spec.function?.assets ?? [],
      access: spec.access,
      authenticated: spec.auth === 'apiKey',
    })),
    {
      name: '$default',
      entry: notFoundRoute.entry,
      kind: 'api' as const,
      assets: [],
      access: notFoundRoute.access,
      authenticated: false,
    },
    ...Object.entries(consumers).map(([name, spec]) => ({
      name,
      entry: spec.entry,
      kind: 'consumer' as const,
      assets: spec.function.assets ?? [],
      access: spec.access,
      authenticated: false,
    })),
    ...Object.entries(schedules).map(([name, spec]) => ({
      name,
      entry: spec.entry,
      kind: 'schedule' as const,
      assets: spec.function?.assets ?? [],
      access: spec.access,
      authenticated: false,
    })),
    {
      name: 'bootstrap-key installer',
      entry: 'functions/platform/install-bootstrap-key.ts',
      kind: 'deploy' as const,
      assets: [],
      // As the stack grants it (lib/stateless-stack.ts), plus reading and writing the bootstrap secret.
      access: { table: 'readWrite', secretsKey: true },
      authenticated: false,
    },
  ];
}

export interface Bundle {
  outfile: string;
  bytes: number;
  inputs: string[];
}

export async function bundle(fn: FunctionEntry, directory: string): Promise<Bundle> {
  mkdirSync(directory, { recursive: true });
  const outfile = path.join(directory, 'index.js');
  // As in the deployed asset, where no package.json says "module": index.js is CommonJS.
  writeFileSync(path.join(directory, 'package.json'), '{ "type": "commonjs" }\n');
  const result = await esbuild.build({
    ...esbuildSettings,
    entryPoints: [path.join(root, fn.entry)],
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  for (const asset of fn.assets) copyFileSync(path.join(root, asset), path.join(directory, path.basename(asset)));
  return { outfile, bytes: statSync(outfile).size, inputs: Object.keys(result.metafile.inputs) };
}

export interface ColdStart {
  initMs: number;
  /** The AWS SDK clients (`client-dynamodb`, `client-sqs`, …) that importing the function loaded. */
  clients: string[];
}

/** Imports a bundled function in a fresh node process, as Lambda's init phase does. */
export function coldStart(outfile: string): ColdStart {
  const script = [
    'const t = performance.now();',
    `await import(${JSON.stringify(pathToFileURL(outfile).href)});`,
    'const initMs = performance.now() - t;',
    "const { createRequire } = await import('node:module');",
    'const loaded = Object.keys(createRequire(import.meta.url).cache);',
    'const clients = [...new Set(loaded.map((file) => /node_modules[\\/]@aws-sdk[\\/](client-[\\w-]+)/.exec(file)?.[1]).filter(Boolean))].sort();',
    'process.stdout.write(JSON.stringify({ initMs, clients }));',
  ].join('\n');
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    encoding: 'utf8',
  });
  return JSON.parse(output) as ColdStart;
}

export async function benchFunctions(samples = 10) {
  const base = path.join(root, '.bench', 'functions');
  rmSync(base, { recursive: true, force: true });
  buildConsole();
  const rows: { name: string; kind: string; bytes: number; initMs: number; clients: string[]; parquet: boolean }[] = [];
  for (const [index, fn] of allFunctions().entries()) {
    const built = await bundle(fn, path.join(base, String(index)));
    const starts = Array.from({ length: samples }, () => coldStart(built.outfile));
    const times = starts.map((start) => start.initMs).sort((a, b) => a - b);
    rows.push({
      name: fn.name,
      kind: fn.kind,
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
