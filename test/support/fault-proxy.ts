/**
 * A real HTTP proxy in front of a real endpoint (the DynamoDB, S3 or SQS stand-in) that fails or
 * slows requests on demand, to inject the faults the service must survive: a tenant store that is
 * down, an acknowledgement (DeleteMessageBatch) that never reaches the queue, a table that answers
 * past its callers' timeouts.
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
  /**
   * Requests matching the rule go through `ms` late (a caller that gave up meanwhile may still see
   * its request applied, as with a slow AWS endpoint); null lets everything through at once.
   */
  delayWhen(rule: FaultRule | null, ms?: number): void;
  delayed(): number;
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
  let delayRule: FaultRule | null = null;
  let delayMs = 0;
  let delayedCount = 0;
  const server: Server = createServer((incoming, outgoing) => {
    if (delayRule?.(incoming)) {
      delayedCount++;
      // The caller may give up meanwhile: its closed connection is no error of the proxy's.
      incoming.on('error', () => undefined);
      outgoing.on('error', () => undefined);
      incoming.pause();
      setTimeout(() => forward(incoming, outgoing), delayMs);
      return;
    }
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
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
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
    delayWhen(next, ms = 0) {
      delayRule = next;
      delayMs = ms;
    },
    delayed: () => delayedCount,
    failed: () => failedCount,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
