/**
 * The tracer is in a bundle only when the stack builds it with SDK tracing (the tracing context value
 * on, for the ingest function and the queue consumers), and the ingest function stays an API
 * function's size with it.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBundles } from '#lib/bundling.ts';
import { initialiseAlone } from '#lib/deployed-functions.ts';
import { parquetAssets } from '#shared/topology.ts';

const root = path.resolve(import.meta.dirname, '..', '..');

const directory = mkdtempSync(path.join(os.tmpdir(), 'tributary-tracing-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function build(entry: string, sdkCalls: boolean) {
  const [bundle] = buildBundles(
    [{ entry, assets: [], tracesSdkCalls: sdkCalls }],
    path.join(directory, String(sdkCalls)),
  );
  const tracer = Object.keys(bundle?.inputs ?? {}).some((input) => input.includes('aws-xray-sdk-core'));
  // Beside the AWS SDK every bundle carries: the size the budget of an API function is about.
  return { bytes: bundle?.bytesBesideSdk ?? 0, tracer, directory: bundle?.directory ?? '' };
}

describe('SDK tracing in the bundles', () => {
  it('leaves the tracer out unless the bundle is built with it', async () => {
    expect((await build('functions/ingest/accept.ts', false)).tracer).toBe(false);
    expect((await build('functions/ingest/write-batch.ts', false)).tracer).toBe(false);
    expect((await build('functions/ingest/write-batch.ts', true)).tracer).toBe(true);
  }, 120_000);

  it('keeps the ingest function under 320 KB beside the AWS SDK with the tracer built in', async () => {
    const traced = await build('functions/ingest/accept.ts', true);
    expect(traced.tracer).toBe(true);
    // 300 KB before it kept the request's headers (zod's record schema) and checked the edge's origin secret.
    expect(traced.bytes).toBeLessThanOrEqual(320 * 1024);
  }, 120_000);

  it('loads alone as Lambda loads it with the tracer built in, as a traced deployment runs it', async () => {
    for (const entry of ['functions/ingest/accept.ts', 'functions/ingest/write-batch.ts']) {
      const traced = await build(entry, true);
      const assets = entry.endsWith('write-batch.ts') ? parquetAssets : [];
      for (const asset of assets)
        copyFileSync(path.join(root, asset), path.join(traced.directory, path.basename(asset)));
      const started = await initialiseAlone({
        template: 'unit',
        logicalId: 'Traced',
        handler: 'index.handler',
        runtime: 'nodejs22.x',
        memoryMb: 512,
        timeoutSeconds: 10,
        assetDirectory: traced.directory,
        environment: { _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' },
      });
      expect({ entry, started }).toEqual({ entry, started: { error: null } });
    }
  }, 120_000);
});
