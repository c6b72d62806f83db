/**
 * s3rver in a process of its own. It needs Node's legacy OpenSSL provider (its listing
 * continuation tokens use DES; without it any truncated ListObjectsV2 answers 500), and that flag
 * belongs to this process only. The parent starts it with fork() and talks to it over IPC.
 */
import S3rver from 's3rver';

// s3rver can throw outside a request (a key read while it is deleted); that must not take the
// whole stand-in down with every later request.
process.on('uncaughtException', (error) => {
  process.stderr.write(`s3 stand-in: ${error.stack}\n`);
});
const [port, directory] = [Number(process.argv[2]), process.argv[3] as string];
const server = new S3rver({ port, address: '127.0.0.1', directory, silent: true });
const address = await server.run();
process.send?.({ ready: true, port: address.port });
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
