/**
 * Starts `local/main.ts` (what `npm start` runs; the suite's build of it, test/support/local-build.ts)
 * as a child process, so that a test can stop, kill or restart the service:
 *  - `startRuntimeProcess` joins stand-ins that are already running (LOCAL_STAND_INS=external), so
 *    the queues, the table and the buckets live on, exactly as they would on AWS;
 *  - `startLocalService` is the whole of `npm start`, stand-ins included, in a process group of its
 *    own, so that a test can signal or kill that group as a terminal, systemd or a container would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, freePorts } from '../../local/free-port.ts';
import { localModule } from '../../local/modules.ts';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The AWS calls a service refused that no test asked to be refused: every `AccessDenied:` line of
 * its output but those for the buckets a test names `not-granted-…` (test/integration/iam.test.ts).
 * The suite fails on any (test/support/global-setup.ts, and each runtime a test stops).
 */
export function unaskedDenials(lines: string[]): string[] {
  return lines.filter((line) => !/ arn:aws:s3:::not-granted-/.test(line));
}

export interface RuntimeProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** The lines of its output that report a refused AWS call. */
  denials: string[];
  /** SIGTERM and wait for a graceful exit; resolves with the exit code, rejects on a denial no test asked for. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing flushed. */
  kill(): Promise<void>;
}

interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Every line of the output that reports a refused AWS call, however long the output grew. */
  denials: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnMain(env: Record<string, string>, ownGroup: boolean): Spawned {
  const childEnv = { ...process.env, ...env };
  // From the suite's build when TRIBUTARY_LOCAL_BUILD names one (test/support/global-setup.ts).
  const main = localModule('local/main.ts', childEnv);
  return spawnLogged(process.execPath, [...main.execArgv, main.file], childEnv, ownGroup);
}

function spawnLogged(command: string, args: string[], env: NodeJS.ProcessEnv, ownGroup: boolean): Spawned {
  const child = spawn(command, args, {
    cwd: repositoryRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: ownGroup,
  });
  let output = '';
  const denials: string[] = [];
  const partial = { stdout: '', stderr: '' };
  const append = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-Number(process.env.TRIBUTARY_SERVICE_LOG_CHARS ?? 200_000));
    const lines = (partial[stream] + text).split('\n');
    partial[stream] = lines.pop() ?? '';
    denials.push(...lines.filter((line) => line.startsWith('AccessDenied:')));
  };
  child.stdout?.on('data', append('stdout'));
  child.stderr?.on('data', append('stderr'));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, denials, exited };
}

/** Ready means everything started (stand-ins, front, pollers, schedules), which the banner announces. */
async function waitForBanner(spawned: Spawned, timeoutMs: number, line = 'Tributary is running at'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!spawned.output().includes(line)) {
    if (spawned.child.exitCode !== null || spawned.child.signalCode !== null)
      throw new Error(`The service exited during start:\n${spawned.output()}`);
    if (Date.now() > deadline) {
      spawned.child.kill('SIGKILL');
      throw new Error(`The service did not start within ${timeoutMs / 1000} s:\n${spawned.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts another local service on the given stand-ins. Give it its own queues (LOCAL_QUEUE_PREFIX)
 * and, unless it must share the test service's data, its own table (TABLE_NAME): a service's
 * table-commits schedule handles every staged table of its table, sending their triggers to its own
 * queues, and at a graceful stop commits them all. On a shared table, a table of another test that
 * is waiting after a failed commit would get a trigger that stops with this service, and its own
 * trigger is then dropped as covered by it: nothing commits it until the overdue check a minute
 * later.
 */
export async function startRuntimeProcess(
  env: Record<string, string>,
  port?: number,
  startWithinMs = 180_000,
): Promise<RuntimeProcess> {
  port ??= await freePort();
  const spawned = spawnMain({ ...env, PORT: String(port), LOCAL_STAND_INS: 'external' }, false);
  // A bound that only ends a start that is stuck: on a busy two-core machine a start took minutes.
  await waitForBanner(spawned, startWithinMs);
  const { child } = spawned;
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output: spawned.output,
    denials: spawned.denials,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const { code } = child.exitCode === null ? await spawned.exited : { code: child.exitCode };
      const denials = unaskedDenials(spawned.denials);
      if (denials.length > 0) throw new Error(`The service refused calls no test asked it to:\n${denials.join('\n')}`);
      return code;
    },
    async kill() {
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await spawned.exited;
    },
  };
}

export interface LocalServicePorts {
  port: number;
  dynamodb: number;
  s3: number;
  sqs: number;
}

/** Ports for one local service, kept across its restarts (a tenant store names the S3 port). */
export async function localServicePorts(): Promise<LocalServicePorts> {
  const [port, dynamodb, s3, sqs] = (await freePorts(4)) as [number, number, number, number];
  return { port, dynamodb, s3, sqs };
}

export interface LocalService {
  url: string;
  s3Endpoint: string;
  sqsEndpoint: string;
  pid: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Sends a signal to the service's whole process group, as a terminal does; with `everything`,
   * to every process a pid file in DATA_DIR names too, as systemd stops every process of a unit.
   */
  signalGroup(signal: NodeJS.Signals, options?: { everything?: boolean }): void;
  /**
   * SIGKILL to the service's process group and, with `everything`, to every process a pid file in
   * DATA_DIR names (the stand-ins run in groups of their own): a power cut, as far as processes go.
   */
  killGroup(options?: { everything?: boolean }): Promise<void>;
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** The processes the service's pid files in DATA_DIR name. */
export function standInPids(dataDir: string): number[] {
  return (
    readdirSync(dataDir)
      .filter((name) => name.endsWith('.pid'))
      // DynamoDB Local's names its JVM on a line after its own.
      .flatMap((name) => readFileSync(path.join(dataDir, name), 'utf8').split(/\s+/).filter(Boolean).map(Number))
      .filter((pid) => Number.isInteger(pid) && pid > 0)
  );
}

const localServiceEnv = (dataDir: string, ports: LocalServicePorts, env: Record<string, string>) => ({
  ...env,
  DATA_DIR: dataDir,
  PORT: String(ports.port),
  LOCAL_DYNAMODB_PORT: String(ports.dynamodb),
  LOCAL_S3_PORT: String(ports.s3),
  LOCAL_SQS_PORT: String(ports.sqs),
});

export async function startLocalService(
  dataDir: string,
  ports: LocalServicePorts,
  env: Record<string, string> = {},
  /** What it prints once it is where the caller wants it: its banner, unless a line of its start is named. */
  readyLine?: string,
): Promise<LocalService> {
  const spawned = spawnMain(localServiceEnv(dataDir, ports, env), true);
  await waitForBanner(spawned, 240_000, readyLine);
  const pid = spawned.child.pid as number;
  return {
    url: `http://127.0.0.1:${ports.port}`,
    s3Endpoint: `http://127.0.0.1:${ports.s3}`,
    sqsEndpoint: `http://127.0.0.1:${ports.sqs}`,
    pid,
    output: spawned.output,
    exited: spawned.exited,
    signalGroup(signal, options = {}) {
      const others = options.everything ? standInPids(dataDir) : [];
      signalQuietly(-pid, signal);
      for (const other of others) signalQuietly(other, signal);
    },
    async killGroup(options = {}) {
      const others = options.everything ? standInPids(dataDir) : [];
      signalQuietly(-pid, 'SIGKILL');
      for (const other of others) {
        signalQuietly(-other, 'SIGKILL');
        signalQuietly(other, 'SIGKILL');
      }
      await spawned.exited;
    },
  };
}

export interface NpmStart {
  url: string;
  s3Endpoint: string;
  sqsEndpoint: string;
  /** npm's own pid, which leads the process group everything `npm start` runs in. */
  pid: number;
  output(): string;
  /** npm's exit. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `npm start` itself, in a process group of its own, as a terminal or a container runs it. Its
 * `prestart` (the console's build) is skipped: it rewrites dist/console, which the suite's service
 * serves meanwhile, and has nothing to do with how the service starts and stops.
 */
export async function startWithNpm(
  dataDir: string,
  ports: LocalServicePorts,
  env: Record<string, string> = {},
): Promise<NpmStart> {
  const spawned = spawnLogged(
    'npm',
    ['start', '--ignore-scripts'],
    { ...process.env, ...localServiceEnv(dataDir, ports, env) },
    true,
  );
  await waitForBanner(spawned, 240_000);
  return {
    url: `http://127.0.0.1:${ports.port}`,
    s3Endpoint: `http://127.0.0.1:${ports.s3}`,
    sqsEndpoint: `http://127.0.0.1:${ports.sqs}`,
    pid: spawned.child.pid as number,
    output: spawned.output,
    exited: spawned.exited,
  };
}
