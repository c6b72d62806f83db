/**
 * s3rver in a process of its own, over a durable store (local/s3/durable-store.ts), with S3's
 * conditional writes (local/s3/conditional-writes.ts). It needs Node's
 * legacy OpenSSL provider (its listing continuation tokens use DES; without it any truncated
 * ListObjectsV2 answers 500), and that flag belongs to this process only. The parent starts it with
 * fork() and stops it by closing the IPC channel (or by going away). SIGINT and SIGTERM stop it
 * only once its parent is gone: while the service runs, a signal to its group or unit is the service's.
 */
import { mkdirSync } from 'node:fs';
import { DurableStore } from './s3/durable-store.ts';
import { s3Server } from './s3/server.ts';

// s3rver can throw outside a request (a key read while it is deleted); that must not take the
// whole stand-in down with every later request.
process.on('uncaughtException', (error) => {
  process.stderr.write(`s3 stand-in: ${error.stack}\n`);
});
const [port, directory] = [Number(process.argv[2]), process.argv[3] as string];
const server = s3Server({ port, directory });
mkdirSync(directory, { recursive: true });
const removed = DurableStore.removeTemporaryFiles(directory);
if (removed > 0) process.stderr.write(`s3 stand-in: removed ${removed} unfinished writes left by a crash\n`);
const address = await server.run();
process.send?.({ ready: true, port: address.port });

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  // Every answered write is on disk already; a request still open after a moment is not waited for.
  setTimeout(() => process.exit(0), 3000).unref();
  await server.close();
  process.exit(0);
}
// While the service is there, it stops this stand-in, last; a signal to its group is not for us.
process.on('disconnect', () => void stop());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!process.connected) void stop();
  });
}
