import { IncomingMessage } from 'node:http';
import { connect, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildEvent, compileRoutes, type Handler, type HttpFront, startHttpFront } from '../../local/http-front.ts';

function request(method: string, url: string, rawHeaders: string[]): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.method = method;
  message.url = url;
  message.rawHeaders = rawHeaders;
  message.httpVersion = '1.1';
  return message;
}

describe('the local HTTP front', () => {
  it('orders static segments before parameters, as API Gateway matches them', () => {
    const keys = compileRoutes().map((route) => route.key);
    for (const [i, key] of keys.entries()) {
      const segments = key.split(' ')[1]?.split('/') ?? [];
      for (const later of keys.slice(i + 1)) {
        const laterSegments = later.split(' ')[1]?.split('/') ?? [];
        const firstDifference = segments.findIndex((segment, index) => segment !== laterSegments[index]);
        if (firstDifference < 0) continue;
        const here = segments[firstDifference] ?? '';
        const there = laterSegments[firstDifference] ?? '';
        expect({ key, later, wrongOrder: here.startsWith('{') && !there.startsWith('{') && there !== '' }).toEqual({
          key,
          later,
          wrongOrder: false,
        });
      }
    }
  });

  it('builds a payload 2.0 event: lowercased headers, joined repeats, decoded query', () => {
    const event = buildEvent(
      request('POST', '/api/x?feed=a&feed=b&q=%20s', [
        'Content-Type',
        'application/json',
        'X-Thing',
        '1',
        'x-thing',
        '2',
      ]),
      Buffer.from('{"a":1}'),
      'POST /api/x',
      undefined,
    );
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('POST /api/x');
    expect(event.headers).toEqual({ 'content-type': 'application/json', 'x-thing': '1,2' });
    expect(event.queryStringParameters).toEqual({ feed: 'a,b', q: ' s' });
    expect(event.rawQueryString).toBe('feed=a&feed=b&q=%20s');
    expect(event.body).toBe('{"a":1}');
    expect(event.isBase64Encoded).toBe(false);
  });

  it('gives a request without a query string, or with an empty one, no query', () => {
    const events = ['/api/x', '/api/x?', '/api/x#a'].map((url) =>
      buildEvent(request('GET', url, []), Buffer.alloc(0), 'GET /api/x', undefined),
    );
    expect(events.map((event) => [event.rawQueryString, event.queryStringParameters])).toEqual([
      ['', undefined],
      ['', undefined],
      ['', undefined],
    ]);
  });

  it('passes the query string on exactly as sent, for the schemes that sign the URL', () => {
    const event = buildEvent(
      request('POST', '/api/x?c=O\'Brien&d=%2F&e=a+b&f="<é>"', []),
      Buffer.alloc(0),
      'POST /api/x',
      undefined,
    );
    expect(event.rawQueryString).toBe('c=O\'Brien&d=%2F&e=a+b&f="<é>"');
    expect(event.queryStringParameters).toEqual({ c: "O'Brien", d: '/', e: 'a b', f: '"<é>"' });
  });

  it('base64-encodes binary bodies and text bodies that are not valid UTF-8', () => {
    const binary = Buffer.from([0, 255, 128, 10]);
    const asOctets = buildEvent(
      request('POST', '/', ['content-type', 'application/octet-stream']),
      binary,
      'x',
      undefined,
    );
    expect(asOctets.isBase64Encoded).toBe(true);
    expect(Buffer.from(asOctets.body ?? '', 'base64')).toEqual(binary);
    const invalidText = buildEvent(request('POST', '/', ['content-type', 'application/json']), binary, 'x', undefined);
    expect(invalidText.isBase64Encoded).toBe(true);
    expect(Buffer.from(invalidText.body ?? '', 'base64')).toEqual(binary);
  });
});

describe('the raw path', () => {
  it('keeps dot segments, encoded or not, for the handler to judge', async () => {
    const { rawPathOf } = await import('../../local/http-front.ts');
    expect(rawPathOf('/api/wiki-documents/a/../b?x=1')).toBe('/api/wiki-documents/a/../b');
    expect(rawPathOf('/api/wiki-documents/a/%2E%2E/b')).toBe('/api/wiki-documents/a/%2E%2E/b');
  });
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A client written with a bare socket, which can send what fetch and http.request never would. */
class RawClient {
  readonly socket: Socket;
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  closed = false;
  reset = false;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    this.socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') this.reset = true;
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  write(data: string | Buffer): boolean {
    return this.closed || this.socket.destroyed ? false : this.socket.write(data);
  }

  /** The next whole response on the connection (by its Content-Length). */
  async response(): Promise<RawResponse> {
    for (;;) {
      const headEnd = this.buffered.indexOf('\r\n\r\n');
      if (headEnd >= 0) {
        const [statusLine = '', ...lines] = this.buffered.subarray(0, headEnd).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffered.length >= headEnd + 4 + length) {
          const body = this.buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
          this.buffered = this.buffered.subarray(headEnd + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (this.closed) throw new Error(`connection closed (reset: ${this.reset}) after: ${this.buffered.toString()}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
      this.waiting = null;
    }
  }

  async closedByServer(): Promise<boolean> {
    while (!this.closed) await new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    return this.closed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function expectErrorShape(response: RawResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  const body = JSON.parse(response.body);
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'message', 'request_id']);
  expect(body.code).toBe(code);
}

const ingestHead = (length: number | 'chunked') =>
  `POST /api/ingest/src HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
  (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${length}\r\n`) +
  '\r\n';

describe('the local HTTP front, facing hostile clients', () => {
  let front: HttpFront;
  let port: number;
  /** Requests the stand-in handler has seen, and a gate that holds them while a test needs one in flight. */
  let handled = 0;
  let gate: Promise<void> = Promise.resolve();

  const handler: Handler = async (event) => {
    handled++;
    await gate;
    return { statusCode: 202, body: JSON.stringify({ bytes: event.body?.length ?? 0 }) };
  };

  beforeEach(async () => {
    handled = 0;
    gate = Promise.resolve();
    front = await startHttpFront({
      port: 0,
      host: '127.0.0.1',
      limits: { maxBodyBytes: 64 * 1024, headersTimeoutMs: 300, requestTimeoutMs: 600 },
      loadHandler: async () => handler,
    });
    port = Number(new URL(front.url).port);
  });
  afterEach(async () => {
    await front.close();
  });

  it('refuses a declared length over the limit before reading the body, then closes', async () => {
    const client = new RawClient(port);
    client.write(ingestHead(100 * 1024 * 1024));
    // The client goes on sending for as long as it can: the answer must reach it all the same.
    const block = Buffer.alloc(64 * 1024, 97);
    let sent = 0;
    const pump = () => {
      while (sent < 100 * 1024 * 1024 && client.write(block)) sent += block.length;
      if (!client.closed) client.socket.once('drain', pump);
    };
    pump();
    expectErrorShape(await client.response(), 413, 'PAYLOAD_TOO_LARGE');
    expect(await client.closedByServer()).toBe(true);
    expect({ handled, reset: client.reset, wholeBodySent: sent >= 100 * 1024 * 1024 }).toEqual({
      handled: 0,
      reset: false,
      wholeBodySent: false,
    });
  });

  it('answers a client that asks before sending (Expect: 100-continue) with 413 instead of "go on"', async () => {
    const large = new RawClient(port);
    large.write(ingestHead(100 * 1024 * 1024).replace('\r\n\r\n', '\r\nExpect: 100-continue\r\n\r\n'));
    expectErrorShape(await large.response(), 413, 'PAYLOAD_TOO_LARGE');

    const small = new RawClient(port);
    small.write(ingestHead(2).replace('\r\n\r\n', '\r\nExpect: 100-continue\r\n\r\n'));
    expect((await small.response()).status).toBe(100);
    small.write('{}');
    expect((await small.response()).status).toBe(202);
    small.destroy();
  });

  it('answers 413 as soon as a chunked body passes the limit, without waiting for its end', async () => {
    const client = new RawClient(port);
    client.write(ingestHead('chunked'));
    const chunk = Buffer.alloc(16 * 1024, 98);
    for (let i = 0; i < 5; i++)
      client.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    // No terminating chunk: the body never ends.
    const response = await client.response();
    expectErrorShape(response, 413, 'PAYLOAD_TOO_LARGE');
    expect(response.headers.connection).toBe('close');
    expect(handled).toBe(0);
    client.destroy();
  });

  it('answers 408 to a body sent a byte at a time, and to headers that never end', async () => {
    const slowBody = new RawClient(port);
    slowBody.write(ingestHead(1000));
    const trickle = setInterval(() => slowBody.write('x'), 50);
    const bodyResponse = await slowBody.response().finally(() => clearInterval(trickle));
    expectErrorShape(bodyResponse, 408, 'REQUEST_TIMEOUT');

    const slowHeaders = new RawClient(port);
    slowHeaders.write('GET /live HTTP/1.1\r\nHost: x\r\n');
    expectErrorShape(await slowHeaders.response(), 408, 'REQUEST_TIMEOUT');
    expect(handled).toBe(0);
  });

  it('shapes the answers of the HTTP parser: 431 past 10 KB of headers (API Gateway’s quota), 400 for a bad request line', async () => {
    const bigHeaders = new RawClient(port);
    bigHeaders.write(`GET /live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(10 * 1024 + 1)}\r\n\r\n`);
    expectErrorShape(await bigHeaders.response(), 431, 'HEADERS_TOO_LARGE');

    for (const garbage of ['NOT HTTP AT ALL\r\n\r\n', 'GET /live HTTP/9.9\r\n\r\n', 'G\u0000T / HTTP/1.1\r\n\r\n']) {
      const client = new RawClient(port);
      client.write(garbage);
      expectErrorShape(await client.response(), 400, 'VALIDATION_ERROR');
    }
    expect(handled).toBe(0);
  });

  it("keeps a quiet sender's connection open past the 5 s Node closes it at by default", async () => {
    const quiet = new RawClient(port);
    quiet.write(`${ingestHead(2)}{}`);
    const first = await quiet.response();
    expect([first.status, first.headers['keep-alive']]).toEqual([202, 'timeout=65']);
    await new Promise((resolve) => setTimeout(resolve, 6000));
    expect(quiet.closed).toBe(false);
    quiet.write(`${ingestHead(2)}{}`);
    expect((await quiet.response()).status).toBe(202);
  }, 15_000);

  it('once stopping, answers every new request 503 with Connection: close, and lets those in flight finish', async () => {
    const kept = new RawClient(port);
    kept.write(`${ingestHead(2)}{}`);
    expect((await kept.response()).status).toBe(202);

    let open: () => void = () => undefined;
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const inFlight = new RawClient(port);
    inFlight.write(`${ingestHead(2)}{}`);
    while (handled < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    let refused = false;
    const stopping = front.refuse().then(() => {
      refused = true;
    });
    // The kept-alive connection's next request, and a new connection's first.
    kept.write(`${ingestHead(2)}{}`);
    const onKept = await kept.response();
    expectErrorShape(onKept, 503, 'SERVICE_UNAVAILABLE');
    expect(onKept.headers.connection).toBe('close');
    const fresh = new RawClient(port);
    fresh.write(`${ingestHead(2)}{}`);
    const onFresh = await fresh.response();
    expectErrorShape(onFresh, 503, 'SERVICE_UNAVAILABLE');
    expect(onFresh.headers.connection).toBe('close');
    expect(await kept.closedByServer()).toBe(true);
    expect(refused).toBe(false);

    open();
    const finished = await inFlight.response();
    expect(finished.status).toBe(202);
    expect(finished.headers.connection).toBe('close');
    await stopping;
    expect({ refused, handled, reset: kept.reset || fresh.reset || inFlight.reset }).toEqual({
      refused: true,
      handled: 2,
      reset: false,
    });
  });
});

describe('the local HTTP front, routing requests one after another', () => {
  it('gives each request its route and path parameters of its own, for a path seen before too', async () => {
    const seen: { routeKey: string; params: Record<string, string | undefined> | undefined }[] = [];
    const handler: Handler = async (event) => {
      seen.push({ routeKey: event.routeKey, params: event.pathParameters && { ...event.pathParameters } });
      // A handler that changes its event must not change the next request's.
      if (event.pathParameters) event.pathParameters.source_id = 'changed';
      return { statusCode: 200, body: '' };
    };
    const front = await startHttpFront({ port: 0, host: '127.0.0.1', loadHandler: async () => handler });
    try {
      for (const [method, path] of [
        ['POST', '/api/ingest/a'],
        ['POST', '/api/ingest/b'],
        ['POST', '/api/ingest/a'],
        ['PUT', '/api/ingest/a'],
        ['POST', '/api/ingest/a%20b'],
        ['POST', '/api/ingest/a'],
      ] as const) {
        await (await fetch(`${front.url}${path}`, { method, body: method === 'POST' ? '{}' : undefined })).text();
      }
    } finally {
      await front.close();
    }
    const ingest = 'POST /api/ingest/{source_id}';
    expect(seen).toEqual([
      { routeKey: ingest, params: { source_id: 'a' } },
      { routeKey: ingest, params: { source_id: 'b' } },
      { routeKey: ingest, params: { source_id: 'a' } },
      { routeKey: '$default', params: undefined },
      { routeKey: ingest, params: { source_id: 'a b' } },
      { routeKey: ingest, params: { source_id: 'a' } },
    ]);
  });
});

describe('the local HTTP front, when the integration fails as API Gateway answers it', () => {
  const one = (handler: Handler, limits = {}) =>
    startHttpFront({
      port: 0,
      host: '127.0.0.1',
      routes: [{ routeKey: 'POST /echo', target: 'echo', timeoutSeconds: 1 }],
      limits,
      loadHandler: async () => handler,
    });
  const call = async (front: HttpFront, body = '{}') => {
    const response = await fetch(`${front.url}/echo`, { method: 'POST', body });
    return { status: response.status, body: await response.text() };
  };

  it('answers 500 {"message":"Internal Server Error"} for a function that failed or timed out', async () => {
    const timedOut = Object.assign(new Error('Task timed out after 1.00 seconds'), { name: 'Sandbox.Timedout' });
    for (const failure of [new Error('boom'), timedOut]) {
      const front = await one(async () => {
        throw failure;
      });
      try {
        expect(await call(front)).toEqual({ status: 500, body: '{"message":"Internal Server Error"}' });
      } finally {
        await front.close();
      }
    }
  });

  it('answers 503 {"message":"Service Unavailable"} past the integration timeout', async () => {
    const front = await one(() => new Promise(() => undefined), { integrationTimeoutMs: 200 });
    try {
      expect(await call(front)).toEqual({ status: 503, body: '{"message":"Service Unavailable"}' });
    } finally {
      await front.close();
    }
  });

  it('answers 413 for an event over the 6 MB a synchronous invocation carries, and 500 for a response over it', async () => {
    let invoked = 0;
    const front = await one(async (event) => {
      invoked++;
      return { statusCode: 200, body: event.body === 'big answer' ? 'y'.repeat(6_291_556) : 'ok' };
    });
    try {
      // 6 MiB of text fits API Gateway's 10 MB but not Lambda's request.
      expect(await call(front, 'x'.repeat(6 * 1024 * 1024))).toEqual({
        status: 413,
        body: '{"message":"Request Too Long"}',
      });
      expect(invoked).toBe(0);
      expect(await call(front, 'big answer')).toEqual({ status: 500, body: '{"message":"Internal Server Error"}' });
      expect(await call(front, 'small')).toEqual({ status: 200, body: 'ok' });
    } finally {
      await front.close();
    }
  });
});
