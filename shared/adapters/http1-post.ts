/**
 * POSTs over kept-alive HTTP/1.1 connections, and nothing else: the transport of the SQS calls made
 * per webhook (shared/adapters/sqs/json-protocol.ts). Node's HTTP client costs about as much CPU per
 * request as everything else the ingest function does for a webhook (a request object, an agent,
 * streams, timers and header checks around each call), and all of it is code the function has to
 * warm up before it runs at speed. Here a request is one string written to a socket, and the answer
 * one buffer read back.
 *
 * Why not undici's Pool, the maintained client: measured the same way (the ingest handler against
 * the local stand-ins, 2,000 requests after 200 to warm up, three runs each, alternated), the
 * handler took 744–846 µs of CPU per request over this, 795–896 µs over undici and 894–1,186 µs over
 * node:http; and undici adds 412 KB to the ingest function's 290 KB bundle, which every cold start
 * loads and compiles.
 *
 * What it speaks: a request with a known length; an answer framed by Content-Length or chunked
 * transfer coding (or, from an HTTP/1.0 server, by the connection's close), informational answers
 * (1xx) skipped. A connection goes back to its origin's pool once its answer has been read whole
 * and neither side asked to close it; a pooled connection that the server closes meanwhile leaves
 * the pool. A call on a connection that fails before the whole answer arrived rejects with the
 * socket's error code (ECONNRESET when it was closed): the caller decides whether to try again.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';

export interface PostTarget {
  secure: boolean;
  hostname: string;
  port: number;
}

export interface PostAnswer {
  status: number;
  body: string;
}

/** A call that failed on its connection, with the code Node's own clients give the same failure. */
export class ConnectionError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'ConnectionError';
  }
}

const crlf = Buffer.from('\r\n');
const headEnd = Buffer.from('\r\n\r\n');
/** An answer's head may not grow beyond this (Node's client allows 16 KB too). */
const maxHeadBytes = 16 * 1024;

/**
 * Reads one HTTP/1.1 answer from the bytes a connection delivers, in whatever pieces they come.
 * `push` answers true once the answer is complete; `finish` is told when the connection ended.
 */
export class AnswerReader {
  status = 0;
  /** Whether the connection may carry another request after this answer. */
  reusable = false;
  /** How long the server keeps the connection open while idle, when it says (Keep-Alive: timeout=N). */
  idleTimeoutMs: number | null = null;
  private head: Buffer = Buffer.alloc(0);
  private framing: 'head' | 'length' | 'chunked' | 'close' = 'head';
  private remaining = 0;
  private readonly parts: Buffer[] = [];
  /** Chunked coding: the state between chunks, and the size line or trailer read so far. */
  private chunkState: 'size' | 'data' | 'data-end' | 'trailer' = 'size';
  private line: Buffer = Buffer.alloc(0);
  private complete = false;

  /** Feeds the next bytes; answers whether the answer is now complete. Throws on a malformed answer. */
  push(data: Buffer): boolean {
    let rest: Buffer = data;
    while (rest.length > 0 && !this.complete) {
      if (this.framing === 'head') rest = this.readHead(rest);
      else if (this.framing === 'length') rest = this.readLength(rest);
      else if (this.framing === 'chunked') rest = this.readChunked(rest);
      else {
        this.parts.push(rest);
        rest = Buffer.alloc(0);
      }
    }
    // Bytes beyond the answer: the connection is out of step with its requests.
    if (rest.length > 0) this.reusable = false;
    return this.complete;
  }

  /** The connection ended: answers whether that completed the answer (one framed by the close). */
  finish(): boolean {
    if (this.framing === 'close') this.complete = true;
    return this.complete;
  }

  body(): string {
    return Buffer.concat(this.parts).toString('utf8');
  }

  private readHead(data: Buffer): Buffer {
    const searchFrom = Math.max(0, this.head.length - 3);
    this.head = this.head.length === 0 ? data : Buffer.concat([this.head, data]);
    const end = this.head.indexOf(headEnd, searchFrom);
    if (end < 0) {
      if (this.head.length > maxHeadBytes) throw new Error('The answer head is too large');
      return Buffer.alloc(0);
    }
    const rest = this.head.subarray(end + headEnd.length);
    const lines = this.head.subarray(0, end).toString('latin1').split('\r\n');
    this.head = Buffer.alloc(0);
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0] ?? '');
    if (!statusLine) throw new Error('The answer is not HTTP/1.x');
    const status = Number(statusLine[2]);
    if (status >= 100 && status < 200) return rest; // informational: the real answer follows
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error('The answer has a malformed header');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    this.status = status;
    const connection = (headers.get('connection') ?? '').toLowerCase();
    this.reusable = statusLine[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const keepAlive = /\btimeout=(\d+)/.exec(headers.get('keep-alive') ?? '');
    if (keepAlive?.[1]) this.idleTimeoutMs = Number(keepAlive[1]) * 1000;
    const transferEncoding = (headers.get('transfer-encoding') ?? '').toLowerCase();
    const length = headers.get('content-length');
    if (transferEncoding !== '') {
      if (!/(^|,)\s*chunked$/.test(transferEncoding)) throw new Error('The answer has an unknown transfer coding');
      this.framing = 'chunked';
    } else if (length !== undefined) {
      if (!/^\d+$/.test(length)) throw new Error('The answer has a malformed length');
      this.framing = 'length';
      this.remaining = Number(length);
      if (this.remaining === 0) this.complete = true;
    } else if (status === 204 || status === 304) {
      this.complete = true;
    } else {
      this.framing = 'close';
      this.reusable = false;
    }
    return rest;
  }

  private readLength(data: Buffer): Buffer {
    const taken = data.subarray(0, this.remaining);
    this.parts.push(taken);
    this.remaining -= taken.length;
    if (this.remaining === 0) this.complete = true;
    return data.subarray(taken.length);
  }

  /** Reads a line ending in CRLF, across pieces: the line once whole (without CRLF), or null. */
  private readLine(data: Buffer): { line: Buffer | null; rest: Buffer } {
    const joined = this.line.length === 0 ? data : Buffer.concat([this.line, data]);
    const end = joined.indexOf(crlf);
    if (end < 0) {
      if (joined.length > maxHeadBytes) throw new Error('The answer has a malformed chunk');
      this.line = joined;
      return { line: null, rest: Buffer.alloc(0) };
    }
    this.line = Buffer.alloc(0);
    return { line: joined.subarray(0, end), rest: joined.subarray(end + crlf.length) };
  }

  private readChunked(data: Buffer): Buffer {
    if (this.chunkState === 'data') {
      const taken = data.subarray(0, this.remaining);
      this.parts.push(taken);
      this.remaining -= taken.length;
      if (this.remaining === 0) this.chunkState = 'data-end';
      return data.subarray(taken.length);
    }
    const { line, rest } = this.readLine(data);
    if (line === null) return rest;
    if (this.chunkState === 'data-end') {
      if (line.length !== 0) throw new Error('The answer has a malformed chunk');
      this.chunkState = 'size';
    } else if (this.chunkState === 'size') {
      const size = /^([0-9a-fA-F]{1,8})(?:[ \t]*;.*)?$/.exec(line.toString('latin1'));
      if (!size?.[1]) throw new Error('The answer has a malformed chunk');
      this.remaining = Number.parseInt(size[1], 16);
      this.chunkState = this.remaining === 0 ? 'trailer' : 'data';
    } else if (line.length === 0) {
      this.complete = true; // the blank line after the last chunk and any trailers
    }
    return rest;
  }
}

interface Exchange {
  reader: AnswerReader;
  resolve: (answer: PostAnswer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** Idle kept-alive connections, by origin. */
const idle = new Map<string, Connection[]>();

/**
 * One connection and the call it carries, if any. Its socket's listeners are set once: bytes go to
 * the call under way; a close, an error or the server's idle timeout ends that call, or, between
 * calls, takes the connection out of its pool.
 */
class Connection {
  private exchange: Exchange | null = null;
  /** How long the server keeps it open while idle, as its last answer said. */
  private idleTimeoutMs: number | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly origin: string,
  ) {
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    socket.on('data', (data: Buffer) => this.received(data));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      this.ended(new ConnectionError(error.message, error.code ?? 'ECONNRESET')),
    );
    socket.on('end', () => this.ended(null));
    socket.on('close', () => this.ended(null));
    socket.on('timeout', () => this.ended(null));
  }

  static open(target: PostTarget, origin: string): Connection {
    const options = { host: target.hostname, port: target.port };
    const socket = target.secure
      ? connectTls({ ...options, servername: target.hostname, ALPNProtocols: ['http/1.1'] })
      : connectTcp(options);
    return new Connection(socket, origin);
  }

  send(request: string, timeoutMs: number): Promise<PostAnswer> {
    this.socket.setTimeout(0);
    this.socket.ref();
    return new Promise<PostAnswer>((resolve, reject) => {
      const timer = setTimeout(
        () => this.settle(new ConnectionError(`No answer within ${timeoutMs} ms`, 'ETIMEDOUT')),
        timeoutMs,
      );
      this.exchange = { reader: new AnswerReader(), resolve, reject, timer };
      this.socket.write(request);
    });
  }

  private received(data: Buffer): void {
    const exchange = this.exchange;
    if (!exchange) {
      this.close(); // bytes nobody asked for: the connection is out of step
      return;
    }
    try {
      if (exchange.reader.push(data)) this.settle(null);
    } catch (error) {
      this.settle(new ConnectionError(`The answer could not be read: ${(error as Error).message}`, 'EPROTO'));
    }
  }

  private ended(error: ConnectionError | null): void {
    const exchange = this.exchange;
    if (!exchange) {
      this.close(); // between calls: it leaves its pool
      return;
    }
    if (!error && exchange.reader.finish()) this.settle(null);
    else this.settle(error ?? new ConnectionError('socket hang up', 'ECONNRESET'));
  }

  private settle(error: ConnectionError | null): void {
    const exchange = this.exchange;
    if (!exchange) return;
    this.exchange = null;
    clearTimeout(exchange.timer);
    if (error) {
      this.close();
      exchange.reject(error);
      return;
    }
    const { reader } = exchange;
    this.idleTimeoutMs = reader.idleTimeoutMs;
    if (reader.reusable && !this.socket.destroyed && reader.idleTimeoutMs !== 0) this.pool();
    else this.close();
    exchange.resolve({ status: reader.status, body: reader.body() });
  }

  /**
   * Back to its origin's pool. One the server said it closes after a time idle leaves the pool a
   * second before: a call written as the server closes it would fail for a request never read.
   */
  private pool(): void {
    this.socket.unref();
    if (this.idleTimeoutMs !== null) this.socket.setTimeout(Math.max(1, this.idleTimeoutMs - 1000));
    let connections = idle.get(this.origin);
    if (!connections) {
      connections = [];
      idle.set(this.origin, connections);
    }
    connections.push(this);
  }

  private close(): void {
    const connections = idle.get(this.origin);
    const index = connections?.indexOf(this) ?? -1;
    if (connections && index >= 0) connections.splice(index, 1);
    this.socket.destroy();
  }
}

function originOf(target: PostTarget): string {
  return `${target.secure ? 'https' : 'http'}://${target.hostname}:${target.port}`;
}

/** Checks a header line's parts: a value with CR or LF would end the header early. */
function headerLine(name: string, value: string): string {
  if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Error(`The header ${name} holds a line break`);
  return `${name}: ${value}\r\n`;
}

/**
 * POSTs `body` to the target's `/` with these headers (Host and Content-Length are added), and
 * answers the status and the body once the whole answer has arrived; `timeoutMs` bounds the time
 * from the call to the whole answer.
 */
export function post(
  target: PostTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostAnswer> {
  const origin = originOf(target);
  let head = `POST / HTTP/1.1\r\n${headerLine('host', headers.host ?? `${target.hostname}:${target.port}`)}`;
  for (const name in headers)
    if (name !== 'host' && name !== 'content-length') head += headerLine(name, headers[name] as string);
  head += `content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
  const connection = idle.get(origin)?.pop() ?? Connection.open(target, origin);
  return connection.send(head + body, timeoutMs);
}
