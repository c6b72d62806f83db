/**
 * Starts `local/main.ts` (what `npm start` runs) as a child process against stand-ins that are
 * already running, so that a test can stop, kill or restart the service while the queues, the
 * table and the buckets live on, exactly as they would on AWS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../local/free-port.ts';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RuntimeProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for a graceful exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing flushed. */
  kill(): Promise<void>;
}

export async function startRuntimeProcess(env: Record<string, string>, port?: number): Promise<RuntimeProcess> {
  port ??= await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts'], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env, PORT: String(port), LOCAL_STAND_INS: 'external' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  // Ready means everything started (front, pollers, schedules), which the banner announces.
  while (!output.includes('Tributary is running at')) {
    if (child.exitCode !== null) throw new Error(`The runtime exited during start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The runtime did not start within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}
