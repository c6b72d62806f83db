/**
 * The tracer is in a bundle only when the stack builds it with SDK tracing (the tracing context value
 * on, for the ingest function and the queue consumers), and the ingest function stays an API
 * function's size with it.
 */
import path from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildSettings, tracingDefine } from '#lib/bundling.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

async function build(entry: string, sdkCalls: boolean) {
  const result = await esbuild.build({
    ...esbuildSettings,
    define: tracingDefine(sdkCalls),
    entryPoints: [path.join(root, entry)],
    write: false,
    outfile: 'index.js',
    metafile: true,
    logLevel: 'error',
  });
  const bytes = result.outputFiles.find((file) => file.path.endsWith('index.js'))?.contents.byteLength ?? 0;
  const tracer = Object.keys(result.metafile.inputs).some((input) => input.includes('aws-xray-sdk-core'));
  return { bytes, tracer };
}

describe('SDK tracing in the bundles', () => {
  it('leaves the tracer out unless the bundle is built with it', async () => {
    expect((await build('functions/ingest/accept.ts', false)).tracer).toBe(false);
    expect((await build('functions/ingest/write-batch.ts', false)).tracer).toBe(false);
    expect((await build('functions/ingest/write-batch.ts', true)).tracer).toBe(true);
  }, 120_000);

  it('keeps the ingest function under 300 KB with the tracer built in', async () => {
    const traced = await build('functions/ingest/accept.ts', true);
    expect(traced.tracer).toBe(true);
    expect(traced.bytes).toBeLessThanOrEqual(300 * 1024);
  }, 120_000);
});
