/** The yardstick for ingest throughput: a bare node:http server that reads the body and answers 202. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(202, { 'content-type': 'application/json' });
    response.end('{"message_id":"00000000-0000-4000-8000-000000000000"}');
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
