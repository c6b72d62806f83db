/**
 * A first start rehearses the deploy (local/deploy/): in an account whose Lambda concurrency is 10 (a
 * new account's), the default synthesis reserves nothing and starts; the bootstrap key's custom
 * resource installs a key and its rotation schedule rotates it at once, so the key the start prints
 * is the rotated one: it authenticates, the installed one no longer does, and a webhook goes through
 * to the table. A service of its own (its own table, queues and DATA_DIR), with no ADMIN_API_KEY.
 * The start is watched from outside as the README's first session does it: whoever sees /health
 * answer finds the key in DATA_DIR.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import * as z from 'zod';
import { freePort } from '../../local/free-port.ts';
import { apiClient } from '../support/api.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';
import { createWebhook, ingest, waitForRows } from '../support/webhooks.ts';

const kept = z.record(
  z.string(),
  z.object({ versions: z.record(z.string(), z.object({ value: z.string().nullable(), stages: z.array(z.string()) })) }),
);

describe('a first start in an account of concurrency 10', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rehearsal-'));
  const tableName = `rehearsal-${randomUUID().slice(0, 8)}`;
  let runtime: RuntimeProcess;
  /** Whether the key file was there when /health first answered, polled every 20 ms during the start. */
  let keyAtFirstHealth: boolean | undefined;

  beforeAll(async () => {
    const port = await freePort();
    let started = false;
    const watching = (async () => {
      while (!started && keyAtFirstHealth === undefined) {
        const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
        if (health) {
          const healthy = health.status === 200;
          await health.body?.cancel();
          if (healthy) keyAtFirstHealth = existsSync(path.join(dataDir, 'admin-api-key'));
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    runtime = await startRuntimeProcess(
      {
        ...inject('runtimeEnv'),
        DATA_DIR: dataDir,
        TABLE_NAME: tableName,
        LOCAL_QUEUE_PREFIX: 'rehearsal-',
        LOCAL_ACCOUNT_CONCURRENCY: '10',
        ADMIN_API_KEY: '',
      },
      port,
    );
    started = true;
    await watching;
    // A start so quick that no poll fell between the front's first answer and the banner.
    keyAtFirstHealth ??= existsSync(path.join(dataDir, 'admin-api-key'));
  });
  afterAll(async () => {
    await runtime?.stop();
  });

  it('checks the reservations, runs the custom resource and the rotation, and says so', () => {
    const output = runtime.output();
    expect(output).toContain("Reserved concurrency: 0 of the account's 10 reserved, 10 unreserved");
    expect(output).toMatch(/Deploy \([0-9.]+ s\): BootstrapKey/);
    expect(output).toContain(
      's): BootstrapKey (AWS::CloudFormation::CustomResource): Create; BootstrapKeyRotationSchedule (AWS::SecretsManager::RotationSchedule): Create, rotated (createSecret, setSecret, testSecret, finishSecret)',
    );
  });

  it('prints the rotated key, which authenticates; the key installed before the rotation does not', async () => {
    const printed = /Bootstrap API key \(PlatformAdmin\): (\S+)/.exec(runtime.output())?.[1] ?? '';
    expect(readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim()).toBe(printed);
    const secrets = kept.parse(
      JSON.parse(readFileSync(path.join(dataDir, 'deployments', tableName, 'secrets-manager.json'), 'utf8')),
    );
    const versions = Object.values(Object.values(secrets)[0]?.versions ?? {});
    const current = versions.find((version) => version.stages.includes('AWSCURRENT'))?.value;
    const installedFirst = versions.find((version) => version.stages.includes('AWSPREVIOUS'))?.value ?? '';
    expect(current).toBe(printed);
    expect(installedFirst).toMatch(/^trb_key_/);

    expect((await apiClient(runtime.url, printed).get('/api/tenants')).status).toBe(200);
    expect((await apiClient(runtime.url, installedFirst).get('/api/tenants')).status).toBe(401);
  });

  it('keeps the key in DATA_DIR before /health first answers', () => {
    expect(keyAtFirstHealth).toBe(true);
  });

  it('is healthy and takes a webhook through to the table', async () => {
    const api = apiClient(runtime.url, readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim());
    const health = await api.get<{ status: string }>('/health', { key: null });
    expect({ status: health.status, body: health.body.status }).toEqual({ status: 200, body: 'Healthy' });

    const hook = await createWebhook(api);
    expect((await ingest(api, hook, JSON.stringify({ rehearsed: true }))).status).toBe(202);
    await waitForRows(api, hook.dataSetId, 1);
  });
});
