/** Free ports for local services run side by side (local/free-port.ts). */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePorts } from '#local/free-port.ts';

describe('freePorts', () => {
  it('answers distinct ports, each free to listen on once answered', async () => {
    const ports = await freePorts(40);
    expect(ports).toHaveLength(40);
    expect(new Set(ports).size).toBe(40);
    for (const port of ports) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
