/** A whole local Tributary, started the way `npm start` starts it, on free ports and a scratch DATA_DIR. */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePorts } from '../local/free-port.ts';

export interface BenchService {
  url: string;
  adminKey: string;
  env: Record<string, string>;
  child: ChildProcess;
  /** What the service printed so far (its log lines at LOG_LEVEL). */
  output(): string;
  stop(): Promise<void>;
}

export async function startService(extraEnv: Record<string, string> = {}): Promise<BenchService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-'));
  const ports = (await freePorts(4)).map(String) as [string, string, string, string];
  const env = {
    DATA_DIR: dataDir,
    PORT: ports[0],
    LOCAL_DYNAMODB_PORT: ports[1],
    LOCAL_S3_PORT: ports[2],
    LOCAL_SQS_PORT: ports[3],
    LOG_LEVEL: 'WARN',
    ...extraEnv,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 180_000;
  while (!output.includes('Tributary is running at')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      // Not left running (and holding its stand-ins) after the bench gives up on it.
      child.kill('SIGTERM');
      throw new Error(`The service did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${env.PORT}`,
    adminKey: readFileSync(path.join(dataDir, 'admin-api-key'), 'utf8').trim(),
    env,
    child,
    output: () => output,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A tenant with a store and a webhook connection, through the API. */
export async function createWebhook(
  service: BenchService,
): Promise<{ connectionId: string; sourceId: string; token: string; dataSetId: string }> {
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${service.url}${route}`, {
      method,
      headers: { 'x-api-key': service.adminKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // A refusal stops the bench: a tenant left without its store would measure 422s, not ingest.
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, string>;
  };
  const tenant = await call('POST', '/api/tenants', { name: `bench ${Date.now()}` });
  // A prefix of its own: two tenants' stores may not overlap (the second would be refused with 409).
  await call('POST', `/api/tenants/${tenant.tenant_id}/register-object-store`, {
    name: 'bench',
    base_url: `s3://demo-bucket/bench-${tenant.tenant_id}`,
    options: { endpoint: `http://127.0.0.1:${service.env.LOCAL_S3_PORT}` },
  });
  const connection = await call('POST', `/api/tenants/${tenant.tenant_id}/connections`, {
    type: 'Webhook',
    name: 'bench',
  });
  return {
    connectionId: connection.connection_id as string,
    sourceId: connection.source_id as string,
    token: connection.ingest_token as string,
    dataSetId: connection.data_set_id as string,
  };
}
