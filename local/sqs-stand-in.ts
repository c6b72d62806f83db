/**
 * local-aws-sqs in a process of its own, so that queue work runs on another core than the service
 * it serves. The parent starts it with fork() and talks to it over IPC.
 */
import type { Server } from 'node:http';
import { createSqsServer } from 'local-aws-sqs';

const port = Number(process.argv[2]);
const server = (await createSqsServer({ port, hostname: '127.0.0.1', emulateQueueCreationLifecycle: false })) as Server;
process.send?.({ ready: true });
const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
