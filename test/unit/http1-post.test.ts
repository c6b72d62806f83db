/**
 * The SQS calls' HTTP/1.1 transport (shared/adapters/http1-post.ts): answers read right however
 * their bytes are split, and, against node's own HTTP server on the loopback, connections kept and
 * reused, a connection the server closed left behind, failures named by their socket codes; and
 * over TLS, a certificate verified before anything is sent.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnswerReader, type ConnectionError, post } from '#shared/adapters/http1-post.ts';

/** Reads an answer fed in the given pieces; what the reader made of it. */
function read(pieces: Buffer[], ended = false) {
  const reader = new AnswerReader();
  let complete = false;
  for (const piece of pieces) complete = reader.push(piece);
  if (ended) complete = reader.finish();
  return { complete, status: reader.status, body: complete ? reader.body() : null, reusable: reader.reusable };
}

/** Every split of the bytes into two pieces, and the bytes one at a time. */
function splits(text: string): Buffer[][] {
  const bytes = Buffer.from(text, 'utf8');
  const result: Buffer[][] = [];
  for (let at = 0; at <= bytes.length; at++) result.push([bytes.subarray(0, at), bytes.subarray(at)]);
  result.push([...bytes].map((byte) => Buffer.from([byte])));
  return result;
}

describe('reading an HTTP/1.1 answer', () => {
  it('reads an answer framed by its length, however it is split', () => {
    const answer =
      'HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 14\r\n\r\n{"a":"é ✓"}';
    for (const pieces of splits(answer)) {
      expect(read(pieces)).toEqual({ complete: true, status: 200, body: '{"a":"é ✓"}', reusable: true });
    }
  });

  it('reads a chunked answer with chunk extensions and trailers, however it is split', () => {
    const answer =
      'HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n' +
      '5\r\n{"__t\r\nA;name=value\r\nype":"Queu\r\n0f\r\neDoesNotExist"}\r\n0\r\nX-Trailer: 1\r\n\r\n';
    for (const pieces of splits(answer)) {
      expect(read(pieces)).toEqual({
        complete: true,
        status: 400,
        body: '{"__type":"QueueDoesNotExist"}',
        reusable: true,
      });
    }
  });

  it('skips informational answers, and reads an empty answer', () => {
    expect(read([Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}')])).toEqual({
      complete: true,
      status: 200,
      body: '{}',
      reusable: true,
    });
    expect(read([Buffer.from('HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n')])).toEqual({
      complete: true,
      status: 204,
      body: '',
      reusable: true,
    });
    expect(read([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')])).toEqual({
      complete: true,
      status: 200,
      body: '',
      reusable: true,
    });
  });

  it('does not keep a connection the server closes, or one out of step with its answers', () => {
    expect(read([Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}')]).reusable).toBe(
      false,
    );
    expect(read([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1')]).reusable).toBe(false);
    expect(read([Buffer.from('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}')]).reusable).toBe(false);
    expect(
      read([Buffer.from('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}')]).reusable,
    ).toBe(true);
  });

  it('reads an answer without a length up to the close of its connection', () => {
    const pieces = [Buffer.from('HTTP/1.0 200 OK\r\n\r\n{"a"'), Buffer.from(':1}')];
    expect(read(pieces)).toEqual({ complete: false, status: 200, body: null, reusable: false });
    expect(read(pieces, true)).toEqual({ complete: true, status: 200, body: '{"a":1}', reusable: false });
  });

  it('is incomplete until the last byte, and refuses what is not an HTTP/1.x answer', () => {
    expect(read([Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{}')], true).complete).toBe(false);
    expect(read([Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n')], true).complete).toBe(
      false,
    );
    for (const malformed of [
      'HTTP/2 200\r\n\r\n',
      'SSH-2.0-OpenSSH\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}xx\r\n',
    ]) {
      expect(() => read([Buffer.from(malformed)]), malformed).toThrow();
    }
    expect(() => read([Buffer.from(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(17_000)}`)])).toThrow(/too large/);
  });
});

describe('posting over kept-alive connections', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const running = server;
    server = undefined;
    if (!running) return;
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  });

  /** A node:http server on the loopback; answers what `answer` does, and counts connections and requests. */
  async function serve(answer: (body: string, response: import('node:http').ServerResponse, socket: Socket) => void) {
    const seen = { connections: 0, requests: [] as { headers: Record<string, unknown>; body: string }[] };
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        seen.requests.push({ headers: request.headers, body });
        answer(body, response, request.socket);
      });
    });
    server.on('connection', () => seen.connections++);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return { seen, target: { secure: false, hostname: '127.0.0.1', port } };
  }

  it('sends the body and headers, and reuses one connection for calls one after another', async () => {
    const { seen, target } = await serve((body, response) => response.end(JSON.stringify({ echo: body })));
    const answers = [];
    for (const text of ['{"n":1}', '{"n":"é ✓"}', '{"n":3}']) {
      answers.push(await post(target, { 'x-amz-target': 'AmazonSQS.SendMessageBatch' }, text, 1000));
    }
    expect(answers).toEqual([
      { status: 200, body: '{"echo":"{\\"n\\":1}"}' },
      { status: 200, body: '{"echo":"{\\"n\\":\\"é ✓\\"}"}' },
      { status: 200, body: '{"echo":"{\\"n\\":3}"}' },
    ]);
    expect(seen.connections).toBe(1);
    expect(seen.requests[1]?.headers).toMatchObject({
      host: `127.0.0.1:${target.port}`,
      'x-amz-target': 'AmazonSQS.SendMessageBatch',
      'content-length': String(Buffer.byteLength('{"n":"é ✓"}')),
    });
  });

  it('opens a connection per call in flight at once, and keeps them all', async () => {
    const { seen, target } = await serve((_body, response) => setTimeout(() => response.end('{}'), 20));
    await Promise.all([1, 2, 3].map(() => post(target, {}, '{}', 1000)));
    await Promise.all([1, 2, 3].map(() => post(target, {}, '{}', 1000)));
    expect({ connections: seen.connections, requests: seen.requests.length }).toEqual({ connections: 3, requests: 6 });
  });

  it('leaves behind a connection the server closed while it was idle', async () => {
    const { seen, target } = await serve((_body, response) => response.end('{}'));
    await post(target, {}, '{}', 1000);
    server?.closeIdleConnections();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await post(target, {}, '{}', 1000)).toEqual({ status: 200, body: '{}' });
    expect(seen.connections).toBe(2);
  });

  it('leaves a connection a second before the server said it would close it while idle', async () => {
    const { seen, target } = await serve((_body, response) => response.end('{}'));
    if (server) server.keepAliveTimeout = 2000; // Node's server says Keep-Alive: timeout=2
    await post(target, {}, '{}', 1000);
    await post(target, {}, '{}', 1000);
    await new Promise((resolve) => setTimeout(resolve, 1300));
    await post(target, {}, '{}', 1000);
    expect(seen.connections).toBe(2);
  });

  it('answers a chunked answer whole, and does not keep a connection the server asks to close', async () => {
    const { seen, target } = await serve((_body, response) => {
      response.setHeader('connection', 'close');
      response.write('{"a":');
      setTimeout(() => response.end('1}'), 10);
    });
    expect(await post(target, {}, '{}', 1000)).toEqual({ status: 200, body: '{"a":1}' });
    expect(await post(target, {}, '{}', 1000)).toEqual({ status: 200, body: '{"a":1}' });
    expect(seen.connections).toBe(2);
  });

  it('fails a call whose connection closes before the whole answer, or that gets no answer in time', async () => {
    const { target } = await serve((body, response, socket) => {
      if (body === 'cut') {
        response.writeHead(200, { 'content-length': '100' });
        response.write('{"partial":', () => socket.destroy());
      }
      // 'silent' gets no answer at all
    });
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: ConnectionError) => error.code,
      );
    expect(await failure(post(target, {}, 'cut', 1000))).toBe('ECONNRESET');
    expect(await failure(post(target, {}, 'silent', 100))).toBe('ETIMEDOUT');
    expect(await failure(post({ ...target, port: 1 }, {}, '{}', 1000))).toBe('ECONNREFUSED');
  });

  it('refuses a header value that would end the header early', () => {
    expect(() => post({ secure: false, hostname: '127.0.0.1', port: 1 }, { 'x-a': 'b\r\nx-c: d' }, '{}', 100)).toThrow(
      /line break/,
    );
  });
});

describe('posting over TLS, as to SQS on AWS', () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'tributary-tls-'));
  const keyFile = path.join(directory, 'key.pem');
  const certFile = path.join(directory, 'cert.pem');
  let server: HttpsServer | undefined;
  const seen: string[] = [];

  beforeAll(async () => {
    // A certificate of its own for localhost, trusted by nobody unless told to.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'ignore' },
    );
    server = createHttpsServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        seen.push(body);
        response.end(JSON.stringify({ protocol: request.httpVersion, secure: 'encrypted' in request.socket, body }));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(directory, { recursive: true, force: true });
  });
  const target = () => {
    if (!server) throw new Error('The server did not start');
    return { secure: true, hostname: 'localhost', port: (server.address() as AddressInfo).port };
  };

  it('refuses a server whose certificate is not trusted, before sending anything', async () => {
    const failure = (await post(target(), {}, '{"secret":1}', 2000).catch(
      (error: unknown) => error,
    )) as ConnectionError;
    expect(failure.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(seen).toEqual([]);
  });

  it('posts over TLS to a server whose certificate is trusted (NODE_EXTRA_CA_CERTS, as a Lambda sets it)', async () => {
    const module = pathToFileURL(path.resolve('shared/adapters/http1-post.ts')).href;
    const script =
      `const { post } = await import(${JSON.stringify(module)});` +
      `const target = ${JSON.stringify(target())};` +
      'const first = await post(target, {}, \'{"n":1}\', 2000);' +
      'const second = await post(target, {}, \'{"n":2}\', 2000);' +
      'console.log(JSON.stringify([first, second])); process.exit(0);';
    // Another process: Node reads NODE_EXTRA_CA_CERTS as it starts. This one keeps serving meanwhile.
    const { stdout: output } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: certFile }, encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toEqual([
      { status: 200, body: '{"protocol":"1.1","secure":true,"body":"{\\"n\\":1}"}' },
      { status: 200, body: '{"protocol":"1.1","secure":true,"body":"{\\"n\\":2}"}' },
    ]);
  });
});
