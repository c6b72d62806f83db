/**
 * The SQS stand-in in a process of its own (so queue work runs on another core than the service it
 * serves): Tributary's durable queues (local/sqs/) behind SQS's JSON protocol, journaled in the
 * directory it is given. The parent starts it with fork() and talks to it over IPC; it stops on
 * SIGTERM, or when its parent goes away, after its last journal flush.
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
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('disconnect', () => void stop());
