/**
 * Integration tests run against the real thing: the stand-ins (DynamoDB Local, S3, SQS) started
 * once here, and the service started as `npm start` would, in a child process. Every test file
 * creates its own tenants, so files can run side by side on the same service.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { issueToken } from '#shared/domain/tokens.ts';
import { freePort } from '../../local/free-port.ts';
import { type StandIns, startStandIns } from '../../local/stand-ins.ts';
import { type RuntimeProcess, startRuntimeProcess } from './runtime-process.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    adminKey: string;
    /** The environment a second runtime process needs to join the same stand-ins. */
    runtimeEnv: Record<string, string>;
    /** Where the API client notes each response the contract check passed (`operationId status`). */
    contractLog: string;
  }
}

let standIns: StandIns | undefined;
let runtime: RuntimeProcess | undefined;
let dataDir: string | undefined;
let contractLog: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-test-'));
  standIns = await startStandIns({
    dataDir,
    dynamodbPort: await freePort(),
    s3Port: await freePort(),
    sqsPort: await freePort(),
  });
  process.stderr.write(
    `stand-ins: DynamoDB ${standIns.endpoints.dynamodb}, S3 ${standIns.endpoints.s3}, SQS ${standIns.endpoints.sqs} (data in ${dataDir})\n`,
  );
  const adminKey = issueToken('apiKey').token;
  const runtimeEnv: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: standIns.endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: standIns.endpoints.s3,
    AWS_ENDPOINT_URL_SQS: standIns.endpoints.sqs,
    DATA_DIR: dataDir,
    ADMIN_API_KEY: adminKey,
    SECRETS_KEY: randomBytes(32).toString('base64url'),
    LOCAL_BATCH_WINDOW_SECONDS: '1',
    LOCAL_VISIBILITY_TIMEOUT_SECONDS: '2',
    LOCAL_DRAIN_TIMEOUT_SECONDS: '20',
    // Jobs whose runner dies fail within seconds rather than minutes.
    LOCAL_SCHEDULE_SECONDS: '1',
    JOB_LEASE_SECONDS: '4',
    // A small ring, so that a test can overflow it with a flood of bad requests.
    REJECTIONS_PER_SOURCE: '50',
    LOG_LEVEL: 'WARN',
  };
  runtime = await startRuntimeProcess(runtimeEnv);
  project.provide('baseUrl', runtime.url);
  project.provide('adminKey', adminKey);
  project.provide('runtimeEnv', runtimeEnv);
  contractLog = path.join(dataDir, 'contract.log');
  writeFileSync(contractLog, '');
  project.provide('contractLog', contractLog);
}

/** Which documented operations and statuses the suite's responses covered, for the closing summary. */
function contractSummary(log: string, documented: string[]): string {
  const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const covered = new Set(lines);
  const operations = new Set(lines.map((line) => line.split(' ')[0]));
  const missing = documented.filter((id) => !operations.has(id));
  return `contract: ${lines.length} responses checked against openapi.json, ${covered.size} operation/status pairs, ${operations.size} operations; never called: ${missing.length ? missing.join(', ') : 'none'}\n`;
}

/** The operation ids of the document the service serves. */
async function servedOperations(baseUrl: string): Promise<string[]> {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  return Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
}

export async function teardown(): Promise<void> {
  if (runtime && contractLog && existsSync(contractLog)) {
    const documented = await servedOperations(runtime.url).catch(() => []);
    process.stderr.write(contractSummary(contractLog, documented));
  }
  if (runtime) {
    const code = await runtime.stop();
    if (code !== 0) process.stderr.write(`runtime exited with ${code}:\n${runtime.output()}\n`);
  }
  await standIns?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
