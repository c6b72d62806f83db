/**
 * Every function as it deploys: bundled with the stack's own esbuild settings (lib/bundling.ts),
 * its size, and its cold initialisation: the bundle imported in a fresh `node` process (median of
 * 10; the time of the import itself, not of starting node).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { esbuildSettings } from '#lib/bundling.ts';
import { notFoundRoute, type RouteSpec, routes } from '#shared/routes.ts';
import { consumers, schedules } from '#shared/topology.ts';

const root = path.resolve(import.meta.dirname, '..');

export interface FunctionEntry {
  name: string;
  entry: string;
  kind: 'api' | 'consumer' | 'schedule' | 'deploy';
  assets: string[];
}

export function allFunctions(): FunctionEntry[] {
  return [
    ...(Object.entries(routes) as [string, RouteSpec][]).map(([key, spec]) => ({
      name: key,
      entry: spec.entry,
      kind: 'api' as const,
      assets: spec.function?.assets ?? [],
    })),
    { name: '$default', entry: notFoundRoute.entry, kind: 'api' as const, assets: [] },
    ...Object.entries(consumers).map(([name, spec]) => ({
      name,
      entry: spec.entry,
      kind: 'consumer' as const,
      assets: spec.function.assets ?? [],
    })),
    ...Object.entries(schedules).map(([name, spec]) => ({
      name,
      entry: spec.entry,
      kind: 'schedule' as const,
      assets: spec.function?.assets ?? [],
    })),
    {
      name: 'bootstrap-key installer',
      entry: 'functions/platform/install-bootstrap-key.ts',
      kind: 'deploy' as const,
      assets: [],
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

function initMilliseconds(outfile: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(outfile).href)}); process.stdout.write(String(performance.now() - t));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    encoding: 'utf8',
  });
  return Number(output);
}

export async function benchFunctions(samples = 10) {
  const base = path.join(root, '.bench', 'functions');
  rmSync(base, { recursive: true, force: true });
  const rows: { name: string; kind: string; bytes: number; initMs: number; parquet: boolean }[] = [];
  for (const [index, fn] of allFunctions().entries()) {
    const built = await bundle(fn, path.join(base, String(index)));
    const times = Array.from({ length: samples }, () => initMilliseconds(built.outfile)).sort((a, b) => a - b);
    rows.push({
      name: fn.name,
      kind: fn.kind,
      bytes: built.bytes,
      initMs: times[Math.floor(times.length / 2)] as number,
      parquet: built.inputs.some(
        (input) => input.includes('node_modules/parquet-wasm') || input.includes('node_modules/apache-arrow'),
      ),
    });
  }
  return rows;
}
