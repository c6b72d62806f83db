/** Free ports for running local mode beside others (tests, the bench): the OS picks, we release at once. */
import { createServer, type Server } from 'node:net';

/**
 * `count` distinct ports that were free a moment ago on 127.0.0.1. Held open together until all are
 * chosen: one released before the next is asked for may be handed out again.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            resolve(typeof address === 'object' && address ? address.port : 0);
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}
