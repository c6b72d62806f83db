/**
 * Integration tests run against the real thing: the stand-ins (DynamoDB Local, S3, SQS) started
 * once here, and the service started as `npm start` would, in a child process. Every test file
 * creates its own tenants, so files can run side by side on the same service.
 *
 * Setup returns as soon as the ports and keys are chosen and starts the service in the background,
 * so that unit and CDK tests run meanwhile; each integration file waits for it
 * (test/support/service-ready.ts), and learns why if it did not start.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { issueToken } from '#shared/domain/tokens.ts';
import { ensureAssembly } from '../../local/assembly.ts';
import { freePorts } from '../../local/free-port.ts';
import { type StandIns, startStandIns } from '../../local/stand-ins.ts';
import { buildLocalService, localBuildDirectory } from './local-build.ts';
import { type RuntimeProcess, startRuntimeProcess, unaskedDenials } from './runtime-process.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    adminKey: string;
    /** The environment a second runtime process needs to join the same stand-ins. */
    runtimeEnv: Record<string, string>;
    /** Where the API client notes each response the contract check passed (`operationId status`). */
    contractLog: string;
    /** The dashboard tool the service hands credentials to; GET /deliveries lists what it received. */
    dashboardTool: string;
    /** A file that says `ready`, or why the service did not start. */
    serviceReady: string;
  }
}

let standIns: StandIns | undefined;
let runtime: RuntimeProcess | undefined;
let dataDir: string | undefined;
let buildDir: string | undefined;
let contractLog: string | undefined;
let dashboardTool: Server | undefined;
let starting: Promise<void> | undefined;

/** A stand-in for the dashboard tool: it records every credential delivered and lists them back. */
async function startDashboardTool(): Promise<string> {
  const deliveries: unknown[] = [];
  dashboardTool = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.method === 'POST') {
        deliveries.push(JSON.parse(body));
        response.writeHead(204).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(deliveries));
    });
  });
  await new Promise<void>((resolve) => dashboardTool?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(dashboardTool.address() as AddressInfo).port}`;
}

export async function setup(project: TestProject): Promise<void> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'tributary-test-'));
  dataDir = directory;
  // The service and its stand-ins run from one build made here (test/support/local-build.ts): the
  // stand-ins started below, and every service a test starts, since the test workers and the
  // processes they start inherit this environment.
  const build = localBuildDirectory();
  buildDir = build;
  process.env.TRIBUTARY_LOCAL_BUILD = build;
  const [dynamodbPort, s3Port, sqsPort, servicePort] = (await freePorts(4)) as [number, number, number, number];
  const ports = { dynamodbPort, s3Port, sqsPort };
  const adminKey = issueToken('apiKey').token;
  const toolUrl = await startDashboardTool();
  const endpoint = (port: number) => `http://127.0.0.1:${port}`;
  const runtimeEnv: Record<string, string> = {
    AWS_ENDPOINT_URL_DYNAMODB: endpoint(ports.dynamodbPort),
    AWS_ENDPOINT_URL_S3: endpoint(ports.s3Port),
    AWS_ENDPOINT_URL_SQS: endpoint(ports.sqsPort),
    DATA_DIR: directory,
    ADMIN_API_KEY: adminKey,
    SECRETS_KEY: randomBytes(32).toString('base64url'),
    LOCAL_BATCH_WINDOW_SECONDS: '1',
    // Long enough that a batch written on a busy machine is not delivered again meanwhile; short
    // enough that envelopes exhaust their five attempts within a test.
    LOCAL_VISIBILITY_TIMEOUT_SECONDS: '4',
    LOCAL_DRAIN_TIMEOUT_SECONDS: '20',
    // Jobs whose runner dies fail within seconds rather than minutes. Every 5 s, not every second: the
    // schedules then took a fifth of the service's CPU during the suite.
    LOCAL_SCHEDULE_SECONDS: '5',
    // Tables commit as each batch arrives unless a test sets a table's tributary.freshness: most tests
    // check what reaches the table; the staging tests look at what waits.
    TABLE_FRESHNESS_SECONDS: '0',
    // A runner renews its lease every third of it: 10 s leaves a renewal 6 s to land while the
    // suite keeps two cores busy (at 4 s, a run was failed as abandoned while its runner was alive).
    JOB_LEASE_SECONDS: '10',
    // A small ring, so that a test can overflow it with a few bad requests.
    REJECTIONS_PER_SOURCE: '10',
    // Each function runs apart, as on AWS: the ingest function learns of a pause, a suspension or a
    // new token from the table, after its cache time (2 s by default). The tests check such changes
    // at once, so the service reads the table on every request; the cache is tested on its own.
    INGEST_CACHE_SECONDS: '0',
    // TRIBUTARY_TEST_LOG_LEVEL=INFO (with TRIBUTARY_SERVICE_LOG below) shows what each committer did.
    LOG_LEVEL: process.env.TRIBUTARY_TEST_LOG_LEVEL ?? 'WARN',
    DASHBOARD_URL: `${toolUrl}/connections`,
  };
  const ready = path.join(directory, 'service-ready');
  // Written whole, then renamed: a reader sees no file or the whole answer.
  const settle = (state: string) => {
    writeFileSync(`${ready}.partial`, state);
    renameSync(`${ready}.partial`, ready);
  };
  starting = (async () => {
    try {
      // The service runs the cloud assembly's functions: synthesised here once (and kept while the
      // sources do not change) before any service starts.
      const [assembly] = await Promise.all([
        ensureAssembly({ tenantBuckets: ['demo-bucket'] }),
        buildLocalService(build),
      ]);
      if (assembly.built) process.stderr.write(`cloud assembly synthesised in ${assembly.seconds.toFixed(1)} s\n`);
      // The suite's stand-ins run for one run and are never restarted: DynamoDB Local keeps the table
      // in memory, at about half the CPU a call (the tests of what survives a stop start services of
      // their own, on files: test/integration/local-stops*.test.ts).
      standIns = await startStandIns({ dataDir: directory, ...ports, dynamodbInMemory: true });
      const started = [standIns.endpoints.dynamodb, standIns.endpoints.s3, standIns.endpoints.sqs];
      const expected = [
        runtimeEnv.AWS_ENDPOINT_URL_DYNAMODB,
        runtimeEnv.AWS_ENDPOINT_URL_S3,
        runtimeEnv.AWS_ENDPOINT_URL_SQS,
      ];
      if (started.join() !== expected.join())
        throw new Error(`Stand-ins at ${started.join(', ')}, not ${expected.join(', ')}`);
      runtime = await startRuntimeProcess(runtimeEnv, servicePort);
      settle('ready');
    } catch (error) {
      settle(`The service did not start: ${(error as Error).stack ?? error}`);
    }
  })();
  project.provide('baseUrl', endpoint(servicePort));
  project.provide('adminKey', adminKey);
  project.provide('runtimeEnv', runtimeEnv);
  project.provide('dashboardTool', toolUrl);
  project.provide('serviceReady', ready);
  contractLog = path.join(directory, 'contract.log');
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
  await starting;
  if (runtime && contractLog && existsSync(contractLog)) {
    const documented = await servedOperations(runtime.url).catch(() => []);
    process.stderr.write(contractSummary(contractLog, documented));
  }
  let denials: string[] = [];
  if (runtime) {
    const code = await runtime.stop().catch(() => null);
    if (code !== 0) process.stderr.write(`runtime exited with ${code}:\n${runtime.output()}\n`);
    denials = unaskedDenials(runtime.denials);
    // The service's own log, kept where TRIBUTARY_SERVICE_LOG says (its last 200,000 characters, or
    // TRIBUTARY_SERVICE_LOG_CHARS).
    if (process.env.TRIBUTARY_SERVICE_LOG) writeFileSync(process.env.TRIBUTARY_SERVICE_LOG, runtime.output());
  }
  await standIns?.stop();
  dashboardTool?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  // Local mode evaluates every AWS call a function makes against its role: one the suite did not
  // ask to be refused would be refused on AWS too, and fails the run (an error thrown here would
  // only be printed: vitest's exit code ignores its global teardown).
  if (denials.length > 0) {
    process.stderr.write(
      `\nThe service refused ${denials.length} AWS calls no test asked it to:\n${denials.join('\n')}\n`,
    );
    process.exitCode = 1;
  }
}
