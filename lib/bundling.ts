/**
 * How every function is bundled, in one place: the stack's NodejsFunction and `npm run bench`
 * build with these settings, so the bench measures exactly what deploys.
 */

/** Runtime-provided: the Node.js 22 Lambda runtime ships the AWS SDK v3. */
export const externalModules = ['@aws-sdk/*'];

/**
 * ESM output of CommonJS dependencies still calls require() and reads __dirname (parquet-wasm
 * loads its .wasm from beside itself); the banner gives them both.
 */
export const banner = [
  "import { createRequire as __tributaryRequire } from 'module';",
  "import { fileURLToPath as __tributaryPath } from 'url';",
  "import { dirname as __tributaryDirname } from 'path';",
  'const require = __tributaryRequire(import.meta.url);',
  'const __filename = __tributaryPath(import.meta.url);',
  'const __dirname = __tributaryDirname(__filename);',
].join(' ');

export const esbuildSettings = {
  bundle: true,
  platform: 'node' as const,
  format: 'esm' as const,
  target: 'node22',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  external: externalModules,
  banner: { js: banner },
};
