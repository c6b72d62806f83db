/**
 * How every function is bundled, in one place: the stack's NodejsFunction and `npm run bench`
 * build with these settings, so the bench measures exactly what deploys.
 *
 * CommonJS output: the runtime-provided AWS SDK ships as CommonJS, and require() loads it about a
 * third faster than an ESM import (which first scans each CommonJS file for its named exports);
 * CommonJS dependencies such as parquet-wasm also find their files beside the bundle through their
 * own __dirname. The sources stay ESM; esbuild converts.
 */

/** Runtime-provided: the Node.js 22 Lambda runtime ships the AWS SDK v3. */
export const externalModules = ['@aws-sdk/*'];

/**
 * Whether the bundle traces its AWS SDK calls (shared/observability/tracing.ts), decided when it is
 * built: esbuild drops the tracer from every bundle built with false.
 */
export function tracingDefine(sdkCalls: boolean): Record<string, string> {
  return { 'process.env.TRIBUTARY_TRACING': JSON.stringify(String(sdkCalls)) };
}

export const esbuildSettings = {
  bundle: true,
  platform: 'node' as const,
  format: 'cjs' as const,
  target: 'node22',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  external: externalModules,
  define: tracingDefine(false),
};
