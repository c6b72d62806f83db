/**
 * A stand-in whose parent was killed may outlive it, holding its port and its files; the next start
 * finds it by the pid file in DATA_DIR and stops it, and never touches a process that only reuses
 * the pid (its command line must name the stand-in and this DATA_DIR).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stopLeftovers } from '../../local/stand-ins.ts';

const started: ChildProcess[] = [];
const directories: string[] = [];

/** A process whose command line looks like a stand-in's (the arguments are all `ps` shows). */
function lookalike(...args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ...args], {
    detached: true,
    stdio: 'ignore',
  });
  started.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('stand-ins left behind by a killed parent', () => {
  it('are stopped at the next start; a reused pid of anything else is left alone', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'leftovers-'));
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'leftovers-elsewhere-'));
    directories.push(dataDir, elsewhere);
    const sqs = lookalike('sqs-stand-in.ts', '0', path.join(dataDir, 'sqs'));
    const s3 = lookalike('s3-stand-in.ts', '0', path.join(dataDir, 's3'));
    // Another DATA_DIR's stand-in, under a pid this DATA_DIR's file names: not ours.
    const foreign = lookalike('dynamodb-stand-in.ts', '0', path.join(elsewhere, 'dynamodb'));
    await Promise.all([sqs, s3, foreign].map((child) => new Promise((resolve) => child.once('spawn', resolve))));
    writeFileSync(path.join(dataDir, 'sqs.pid'), `${sqs.pid}\n`);
    writeFileSync(path.join(dataDir, 's3.pid'), `${s3.pid}\n`);
    writeFileSync(path.join(dataDir, 'dynamodb.pid'), `${foreign.pid}\n`);

    await stopLeftovers(dataDir);
    await Promise.all([exited(sqs), exited(s3)]);

    expect({
      sqs: sqs.signalCode,
      s3: s3.signalCode,
      foreign: foreign.exitCode ?? foreign.signalCode,
      pidFiles: ['sqs', 's3', 'dynamodb'].filter((name) => existsSync(path.join(dataDir, `${name}.pid`))),
    }).toEqual({ sqs: 'SIGTERM', s3: 'SIGTERM', foreign: null, pidFiles: [] });
  });
});
