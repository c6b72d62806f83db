/**
 * Real local servers standing in for AWS, each in a process of its own: DynamoDB Local (the official
 * one, on Java), s3rver for S3 and Tributary's own durable queues for SQS. Handlers reach them
 * through the SDK's service-specific endpoint variables (AWS_ENDPOINT_URL_DYNAMODB, _S3, _SQS), so
 * handler code has no local branches at all.
 *
 * Each stand-in runs in a process group of its own, so that a signal to the service's group (Ctrl-C
 * in a terminal, a container's stop) reaches the service only; and while the service runs, a
 * stand-in ignores SIGINT and SIGTERM (systemd sends them to every process of the unit). The
 * service stops taking requests, writes what it accepted, and stops the stand-ins last, by closing
 * their IPC channels. A stand-in also stops by itself when the process that started it goes away,
 * and each one's pids are kept in DATA_DIR, so that one left behind by a killed parent is found and
 * stopped at the next start.
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { localModule } from './modules.ts';

export interface StandInOptions {
  dataDir: string;
  dynamodbPort: number;
  s3Port: number;
  sqsPort: number;
  /**
   * DynamoDB Local keeps its tables in memory (LOCAL_DYNAMODB_IN_MEMORY): about half its CPU a call
   * (no SQLite file committed on every write), and nothing of the table survives its stop.
   */
  dynamodbInMemory?: boolean;
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
  /** Stops every stand-in and waits for each to exit (the SQS one after its last journal flush). */
  stop(): Promise<void>;
}

/** s3rver accepts these credentials only; the other stand-ins accept any. */
export const localCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
export const localRegion = 'us-east-1';

type StandInName = 'dynamodb' | 's3' | 'sqs';

const modules: Record<StandInName, string> = {
  dynamodb: 'local/dynamodb-stand-in.ts',
  s3: 'local/s3-stand-in.ts',
  sqs: 'local/sqs-stand-in.ts',
};

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

const pidFileOf = (dataDir: string, name: StandInName) => path.join(dataDir, `${name}.pid`);

/** The command line of a running process, or null when there is none. */
function commandLineOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    try {
      return execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' }).trim() || null;
    } catch {
      return null;
    }
  }
}

const alive = (pid: number) => commandLineOf(pid) !== null;

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(-pid, name);
  } catch {
    try {
      process.kill(pid, name);
    } catch {
      // Gone already.
    }
  }
}

async function waitForExit(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(alive)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * A stand-in of this DATA_DIR that an earlier run left behind (its parent was killed) holds the port
 * and the files: stop it first, gracefully if it answers, by force if not. A pid is trusted only if
 * its command line names the stand-in and this DATA_DIR, so a reused pid is never signalled.
 */
async function stopLeftover(dataDir: string, name: StandInName, log: (line: string) => void): Promise<void> {
  const pidFile = pidFileOf(dataDir, name);
  let pids: number[];
  try {
    pids = readFileSync(pidFile, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return;
  }
  const stops = new Map<number, NodeJS.Signals>();
  for (const pid of pids) {
    const commandLine = `${commandLineOf(pid) ?? ''} `;
    if (!commandLine.includes(`${path.join(dataDir, name)} `)) continue;
    // DynamoDB Local's JVM ignores SIGTERM (see dynamodb-stand-in.ts) and shuts down on SIGHUP.
    if (commandLine.includes('DynamoDBLocal')) stops.set(pid, 'SIGHUP');
    // Its source (`s3-stand-in.ts`) or its build (`s3-stand-in.js`, local/modules.ts).
    else if (commandLine.includes(`${path.basename(modules[name], '.ts')}.`)) stops.set(pid, 'SIGTERM');
  }
  const ours = [...stops.keys()];
  if (ours.length > 0) {
    log(`Stopping the ${name} stand-in an earlier run left behind (pid ${ours.join(', ')})`);
    for (const [pid, stop] of stops) signal(pid, stop);
    if (!(await waitForExit(ours, 15_000))) {
      for (const pid of ours) signal(pid, 'SIGKILL');
      await waitForExit(ours, 5_000);
    }
  }
  rmSync(pidFile, { force: true });
}

/** Stops every stand-in of this DATA_DIR an earlier run left behind. */
export async function stopLeftovers(dataDir: string, log: (line: string) => void = () => undefined): Promise<void> {
  await Promise.all((Object.keys(modules) as StandInName[]).map((name) => stopLeftover(dataDir, name, log)));
}

interface Started {
  name: StandInName;
  child: ChildProcess;
  /** Processes the stand-in runs besides itself (DynamoDB Local's JVM). */
  helpers: number[];
}

/** Forks a stand-in module, detached into a process group of its own, and waits for it to report ready. */
async function startStandIn(
  options: StandInOptions,
  name: StandInName,
  args: string[],
  nodeFlags: string[] = [],
): Promise<Started> {
  const standIn = localModule(modules[name]);
  const child = fork(standIn.file, args, {
    execArgv: [...standIn.execArgv, ...nodeFlags],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    detached: true,
  });
  const pidFile = pidFileOf(options.dataDir, name);
  writeFileSync(pidFile, `${child.pid}\n`);
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  const ready = await new Promise<{ pids?: number[]; replayed?: string }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { pids?: number[]; replayed?: string }));
    child.once('exit', (code) => reject(new Error(`The ${name} stand-in exited with ${code}:\n${output}`)));
  });
  const helpers = ready.pids ?? [];
  if (helpers.length > 0) writeFileSync(pidFile, `${[child.pid, ...helpers].join('\n')}\n`);
  if (ready.replayed) options.log?.(`SQS journal: ${ready.replayed}`);
  return { name, child, helpers };
}

async function stopStandIn(dataDir: string, started: Started): Promise<void> {
  const { child } = started;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Closing the channel is the stop: the stand-ins take SIGTERM as the service's, not theirs.
    if (child.connected) child.disconnect();
    else child.kill('SIGTERM');
    const force = setTimeout(() => signal(child.pid as number, 'SIGKILL'), 20_000);
    await exited;
    clearTimeout(force);
  }
  await waitForExit(started.helpers, 10_000);
  rmSync(pidFileOf(dataDir, started.name), { force: true });
}

export function standInEndpoints(ports: { dynamodbPort: number; s3Port: number; sqsPort: number }): Endpoints {
  return {
    dynamodb: `http://127.0.0.1:${ports.dynamodbPort}`,
    s3: `http://127.0.0.1:${ports.s3Port}`,
    sqs: `http://127.0.0.1:${ports.sqsPort}`,
  };
}

export async function startStandIns(options: StandInOptions): Promise<StandIns> {
  const log = options.log ?? (() => undefined);
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  requireJava();
  await stopLeftovers(dataDir, log);
  const startedAt = Date.now();
  log('Starting the stand-ins: DynamoDB Local (on Java), S3 and SQS…');
  // Bounded heap: DynamoDB Local is a test double, not worth a quarter of the machine.
  // C1 only: the JVM starts in half the time on a busy machine, and a stand-in needs no peak speed.
  process.env.JAVA_TOOL_OPTIONS ??= '-Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1';
  const settled = await Promise.allSettled([
    startStandIn(options, 'dynamodb', [
      String(options.dynamodbPort),
      path.join(dataDir, 'dynamodb'),
      ...(options.dynamodbInMemory ? ['in-memory'] : []),
    ]),
    // s3rver's listing continuation tokens use DES, which needs the legacy OpenSSL provider.
    startStandIn(options, 's3', [String(options.s3Port), path.join(dataDir, 's3')], ['--openssl-legacy-provider']),
    startStandIn(options, 'sqs', [String(options.sqsPort), path.join(dataDir, 'sqs')]),
  ]);
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((standIn) => stopStandIn(dataDir, standIn)));
    throw failed.reason;
  }
  const endpoints = standInEndpoints(options);
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  const memory = options.dynamodbInMemory ? ' (in memory: nothing of the table is kept past a stop)' : '';
  log(
    `DynamoDB Local on ${endpoints.dynamodb}${memory}, S3 on ${endpoints.s3}, SQS on ${endpoints.sqs} (up in ${seconds} s)`,
  );
  return {
    endpoints,
    async stop() {
      await Promise.all(started.map((standIn) => stopStandIn(dataDir, standIn)));
    },
  };
}
