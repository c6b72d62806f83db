/**
 * The SQS stand-in in a process of its own (so queue work runs on another core than the service it
 * serves): Tributary's durable queues (local/sqs/) behind SQS's JSON protocol, journaled in the
 * directory it is given. The parent starts it with fork() and stops it by closing the IPC channel
 * (or by going away); it stops after its last journal flush. SIGINT and SIGTERM stop it only once
 * its parent is gone: while the service runs, a signal to its group or its unit is the service's.
 */
import { createServer } from 'node:http';
import { sqsRequestHandler } from './sqs/protocol.ts';
import { QueueService } from './sqs/queues.ts';

const [port, directory] = [Number(process.argv[2]), process.argv[3] as string];
const { service, replayed } = await QueueService.open({
  directory,
  onJournalFailure(error) {
    process.stderr.write(`sqs stand-in: ${error.message}; stopping rather than answer what it cannot keep\n`);
    process.exit(1);
  },
});
const server = createServer(sqsRequestHandler(service, () => `http://127.0.0.1:${port}`));
server.keepAliveTimeout = 30_000;
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(port, '127.0.0.1', () => resolve());
});
process.send?.({ ready: true, replayed });

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  server.close();
  await service.close();
  server.closeAllConnections();
  process.exit(0);
}
// While the service is there, it stops this stand-in, last; a signal to its group is not for us.
process.on('disconnect', () => void stop());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (!process.connected) void stop();
  });
}
