/**
 * What the bundle test of the synthesised assembly (test/cdk/bundles.test.ts) catches, shown on
 * one bundle built two ways: a bundle loaded alone as Lambda loads it fails when a file it reads as
 * it loads is not beside it, and when it leaves the AWS SDK to the runtime.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBundles, esbuildSettings } from '#lib/bundling.ts';
import { type DeployedFunction, initialiseAlone } from '#lib/deployed-functions.ts';
import { scheduleFunction } from '#lib/functions.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const directory = mkdtempSync(path.join(os.tmpdir(), 'tributary-bundles-test-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const commits = scheduleFunction('table-commits');

/** A bundle's folder, as initialiseAlone takes a function of the assembly. */
function asDeployed(assetDirectory: string): DeployedFunction {
  return {
    template: 'unit',
    logicalId: 'TableCommits',
    handler: 'index.handler',
    runtime: 'nodejs22.x',
    memoryMb: 1769,
    timeoutSeconds: 300,
    assetDirectory,
    environment: {},
  };
}

describe('a bundle loaded alone, as Lambda loads it', () => {
  it('fails when a file it reads as it loads is not beside it: the table-commits schedule without its parquet-wasm', async () => {
    // As the stack built it before every kind of function was built from its declaration: the
    // schedule's declared asset dropped.
    const [withAsset, withoutAsset] = buildBundles(
      [
        { entry: commits.entry, assets: commits.settings.assets ?? [], tracesSdkCalls: false },
        { entry: commits.entry, assets: [], tracesSdkCalls: false },
      ],
      directory,
    );
    expect(commits.settings.assets).toEqual(['node_modules/parquet-wasm/node/parquet_wasm_bg.wasm']);
    expect((await initialiseAlone(asDeployed(withoutAsset?.directory ?? ''))).error).toMatch(
      /ENOENT.*parquet_wasm_bg\.wasm/,
    );
    expect(await initialiseAlone(asDeployed(withAsset?.directory ?? ''))).toEqual({ error: null });
  }, 120_000);

  it('fails when it leaves the AWS SDK to the runtime, though the runtime has one to give', async () => {
    const folder = path.join(directory, 'sdk-outside');
    buildSync({
      ...esbuildSettings,
      external: ['@aws-sdk/*'],
      entryPoints: [path.join(root, commits.entry)],
      outfile: path.join(folder, 'index.js'),
      logLevel: 'error',
    });
    // With the files it reads as it loads beside it: the SDK is all it lacks, whichever it loads first.
    for (const asset of commits.settings.assets ?? [])
      copyFileSync(path.join(root, asset), path.join(folder, path.basename(asset)));
    expect((await initialiseAlone(asDeployed(folder))).error).toMatch(
      /requires @aws-sdk\/[\w-]+ from outside its folder/,
    );
  }, 120_000);
});
