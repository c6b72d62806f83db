/**
 * Builds the operator console (console/src) into dist/console: one script, one stylesheet and its icon,
 * bundled and minified by the project's esbuild, for the browser, with no external assets. `npm
 * start` runs it first, and the stack runs it at synth, so that what the console function serves
 * is always built from these sources (the build output is never committed).
 *
 *   npx tsx console/build.ts      builds, and prints the files and their sizes
 */
import { copyFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the built files go (repository-relative); the console function reads them there locally, beside itself on AWS. */
export const consoleBuildDirectory = 'dist/console';
export const consoleAssets = ['console.js', 'console.css', 'icon.svg'] as const;

export function buildConsole(outdir = path.join(root, consoleBuildDirectory)): { file: string; bytes: number }[] {
  esbuild.buildSync({
    entryPoints: [
      { in: path.join(root, 'console/src/main.ts'), out: 'console' },
      { in: path.join(root, 'console/src/styles.css'), out: 'console' },
    ],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
  });
  // The page's icon, as drawn (the policy allows images from this origin only, so it is served too).
  copyFileSync(path.join(root, 'console/src/icon.svg'), path.join(outdir, 'icon.svg'));
  return consoleAssets.map((file) => ({ file, bytes: statSync(path.join(outdir, file)).size }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const { file, bytes } of buildConsole())
    process.stdout.write(`console: ${consoleBuildDirectory}/${file} ${(bytes / 1024).toFixed(1)} KiB\n`);
}
