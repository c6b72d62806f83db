/**
 * A real HTTP proxy in front of a real endpoint (the S3 or SQS stand-in) that fails requests on
 * demand, to inject the faults the service must survive: a tenant store that is down, an
 * acknowledgement (DeleteMessageBatch) that never reaches the queue.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultRule = (request: IncomingMessage) => boolean;

export interface FaultProxy {
  url: string;
  /** Requests matching the rule get a 503 instead of reaching the target; null lets everything through. */
  failWhen(rule: FaultRule | null): void;
  /** Requests matching the rule wait, unanswered, until the rule is lifted (null), then go through. */
  holdWhen(rule: FaultRule | null): void;
  held(): number;
  failed(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let rule: FaultRule | null = null;
  let holdRule: FaultRule | null = null;
  let failedCount = 0;
  let waiting: (() => void)[] = [];
  let heldCount = 0;
  const server: Server = createServer((incoming, outgoing) => {
    if (holdRule?.(incoming)) {
      heldCount++;
      incoming.pause();
      waiting.push(() => forward(incoming, outgoing));
      return;
    }
    forward(incoming, outgoing);
  });
  function forward(incoming: IncomingMessage, outgoing: ServerResponse) {
    if (rule?.(incoming)) {
      failedCount++;
      incoming.resume();
      outgoing.writeHead(503, { 'content-type': 'application/xml' });
      outgoing.end('<Error><Code>ServiceUnavailable</Code><Message>Injected fault</Message></Error>');
      return;
    }
    const forwarded = httpRequest(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      outgoing.writeHead(502).end();
    });
    incoming.pipe(forwarded);
    incoming.resume();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failWhen(next) {
      rule = next;
    },
    holdWhen(next) {
      holdRule = next;
      if (!next) {
        const released = waiting;
        waiting = [];
        for (const go of released) go();
      }
    },
    held: () => heldCount,
    failed: () => failedCount,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
