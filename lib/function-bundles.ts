/**
 * Every function built as it deploys (lib/bundling.ts settings), in one esbuild run, and what its
 * bundle does when Lambda initialises it. The bundle tests check the properties; `npm run bench
 * functions` measures the times.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { esbuildSettings } from './bundling.ts';
import type { FunctionEntry } from './functions.ts';

const root = path.resolve(import.meta.dirname, '..');

export interface FunctionBundle {
  fn: FunctionEntry;
  outfile: string;
  bytes: number;
  /** Repository-relative source files bundled in. */
  inputs: string[];
}

/**
 * Bundles every function into `directory/<index>/index.js` with its assets beside it. One build
 * with many entry points parses each shared module once; the output is what one build per
 * function gives. `directory` should be inside the repository, so that the external AWS SDK
 * resolves from node_modules as it does from the Lambda runtime.
 */
export async function bundleFunctions(functions: FunctionEntry[], directory: string): Promise<FunctionBundle[]> {
  mkdirSync(directory, { recursive: true });
  // As in the deployed asset, where no package.json says "module": index.js is CommonJS.
  writeFileSync(path.join(directory, 'package.json'), '{ "type": "commonjs" }\n');
  const result = await esbuild.build({
    ...esbuildSettings,
    entryPoints: functions.map((fn, index) => ({ in: path.join(root, fn.entry), out: `${index}/index` })),
    outdir: directory,
    metafile: true,
    logLevel: 'error',
  });
  return functions.map((fn, index) => {
    const outfile = path.join(directory, String(index), 'index.js');
    const output = result.metafile.outputs[path.relative(process.cwd(), outfile).split(path.sep).join('/')];
    if (!output) throw new Error(`esbuild wrote no ${outfile}`);
    for (const asset of fn.assets)
      copyFileSync(path.join(root, asset), path.join(path.dirname(outfile), path.basename(asset)));
    return { fn, outfile, bytes: statSync(outfile).size, inputs: Object.keys(output.inputs) };
  });
}

const childEnv = {
  PATH: process.env.PATH,
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** `@aws-sdk/client-dynamodb` → `client-dynamodb`, for any file of an SDK client package. */
const clientPattern = String.raw`node_modules[\\/]@aws-sdk[\\/](client-[\w-]+)[\\/]`;

export interface ColdStart {
  initMs: number;
  /** The AWS SDK clients (`client-dynamodb`, `client-sqs`, …) that importing the function loaded. */
  clients: string[];
}

/** Imports a bundled function in a fresh node process, as Lambda's init phase does, and times it. */
export function coldStart(outfile: string): ColdStart {
  const script = [
    'const t = performance.now();',
    `await import(${JSON.stringify(pathToFileURL(outfile).href)});`,
    'const initMs = performance.now() - t;',
    "const { createRequire } = await import('node:module');",
    'const loaded = Object.keys(createRequire(import.meta.url).cache);',
    `const clients = [...new Set(loaded.map((file) => new RegExp(${JSON.stringify(clientPattern)}).exec(file)?.[1]).filter(Boolean))].sort();`,
    'process.stdout.write(JSON.stringify({ initMs, clients }));',
  ].join('\n');
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: childEnv,
    encoding: 'utf8',
  });
  return JSON.parse(output) as ColdStart;
}

export interface Initialisation {
  /** Why initialising the bundle threw, if it did. */
  error: string | null;
  /** The AWS SDK clients the bundle loads while it initialises, sorted. */
  clients: string[];
}

/**
 * Initialises every bundle in one node process and tells, for each, whether that worked and which
 * AWS SDK clients it loaded, as a fresh process would have. A module's requires run once, when it
 * is first loaded; the child records every require as an edge between files, so what a bundle
 * loads is everything reachable from it, whether an earlier bundle loaded it first or not.
 */
export function initialiseBundles(outfiles: string[]): Initialisation[] {
  const script = `
    const Module = require('node:module');
    const edges = new Map();
    const load = Module._load;
    Module._load = function (request, parent, isMain) {
      let resolved = null;
      try { resolved = Module._resolveFilename(request, parent, isMain); } catch {}
      if (resolved && parent && parent.filename) {
        if (!edges.has(parent.filename)) edges.set(parent.filename, new Set());
        edges.get(parent.filename).add(resolved);
      }
      return load.apply(this, arguments);
    };
    const clientOf = (file) => new RegExp(${JSON.stringify(clientPattern)}).exec(file)?.[1];
    const results = ${JSON.stringify(outfiles)}.map((outfile) => {
      try {
        require(outfile);
      } catch (error) {
        return { error: String(error && error.message), clients: [] };
      }
      const seen = new Set([outfile]);
      const pending = [outfile];
      while (pending.length > 0) {
        for (const next of edges.get(pending.pop()) ?? []) {
          if (!seen.has(next)) { seen.add(next); pending.push(next); }
        }
      }
      return { error: null, clients: [...new Set([...seen].map(clientOf).filter(Boolean))].sort() };
    });
    process.stdout.write(JSON.stringify(results));
  `;
  const output = execFileSync(process.execPath, ['-e', script], {
    cwd: root,
    env: childEnv,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(output) as Initialisation[];
}
