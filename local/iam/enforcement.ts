/**
 * IAM, enforced where the calls are made: in every thread that runs functions, each request to a
 * local AWS endpoint (the DynamoDB, S3 and SQS stand-ins, the local Secrets Manager and STS) signed
 * with a function's credentials is evaluated against that function's role (local/iam/policy-evaluator.ts)
 * before it leaves: allowed, it goes out as it is; denied, it never leaves, and its caller gets the
 * service's own AccessDenied answer, as from AWS. A request signed with any other key (the local
 * tools', the tests') or none (a tenant's store reached without credentials) passes as it is.
 *
 * Why here and not in a proxy in front of the stand-ins: a proxy is one more HTTP hop, parse and
 * thread switch on every call, which halved the ingest front's throughput; here a call whose
 * decision is kept costs a lookup. The check sits where every call passes: the TCP connection to
 * the endpoint (net.Socket's connect), whatever client opened it, the AWS SDK's node:http or the
 * service's own HTTP/1.1 client for its per-webhook queue calls (shared/adapters/http1-post.ts).
 *
 * The credentials name the caller: a function's access key (`LOCAL<name>`, set in its environment)
 * or a session STS issued locally, whose token carries the role and session policy it was assumed
 * with (local/iam/local-services.ts), so that any thread can read it without asking another.
 */

import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import {
  type Decision,
  type Denial,
  type Identity,
  type Policies,
  PolicyEvaluator,
  sessionArn,
} from './policy-evaluator.ts';
import { type AskedAction, accessKeyOf, jsonActions, type Service, s3Actions, stsActions } from './requests.ts';

export interface IamSetup extends Policies {
  /**
   * Every address a service is reached at locally, by origin (`http://127.0.0.1:4566`): the stand-ins'
   * endpoints, the local Secrets Manager's and STS's, and the host the queues' URLs name (the SDK
   * sends a queue's calls there).
   */
  addresses: Record<string, Service>;
  /** The table's partition key attribute (for dynamodb:LeadingKeys). */
  partitionKey: string;
  /** The secrets the deployment names, by ARN (a SecretId may be a secret's name). */
  secretArns: string[];
}

/** What a session token issued locally starts with; the rest is the session, base64url JSON. */
const sessionTokenPrefix = 'local-session.';

export function sessionToken(identity: Identity): string {
  return `${sessionTokenPrefix}${Buffer.from(JSON.stringify(identity)).toString('base64url')}`;
}

function sessionOf(token: string | undefined): Identity | undefined {
  if (!token?.startsWith(sessionTokenPrefix)) return undefined;
  try {
    return JSON.parse(Buffer.from(token.slice(sessionTokenPrefix.length), 'base64url').toString('utf8')) as Identity;
  } catch {
    return undefined;
  }
}

/** The name part of a secret's ARN (`…:secret:<name>-AbCdEf`). */
export const secretNameOf = (arn: string) =>
  arn
    .split(':')
    .pop()
    ?.replace(/-[A-Za-z0-9]{6}$/, '') ?? arn;

/** The service's own AccessDenied answer (each service's error shape). */
function deniedAnswer(service: Service, method: string, message: string) {
  const requestId = randomUUID();
  if (service === 's3') {
    // S3: 403 with an XML error; a HEAD request's answer has no body ("Error responses", S3 API Reference).
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${message
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('"', '&quot;')}</Message><RequestId>${requestId}</RequestId><HostId>local</HostId></Error>`;
    return {
      status: 403,
      headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId },
      body: method === 'HEAD' ? '' : xml,
    };
  }
  if (service === 'sts')
    return {
      status: 403,
      headers: { 'content-type': 'text/xml', 'x-amzn-requestid': requestId },
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>${message}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
    };
  // DynamoDB, SQS (JSON protocol) and Secrets Manager: 400 AccessDeniedException ("Common Errors",
  // each API Reference); SQS also names its query-protocol code, AccessDenied, in x-amzn-query-error.
  const type =
    service === 'secretsmanager' ? 'AccessDeniedException' : 'com.amazon.coral.service#AccessDeniedException';
  return {
    status: 400,
    headers: {
      'content-type': service === 'secretsmanager' ? 'application/x-amz-json-1.1' : 'application/x-amz-json-1.0',
      'x-amzn-requestid': requestId,
      ...(service === 'sqs' ? { 'x-amzn-query-error': 'AccessDenied;Sender' } : {}),
    },
    body: JSON.stringify({ __type: type, [service === 'sqs' ? 'message' : 'Message']: message }),
  };
}

type Refusal = { asked: AskedAction; reason: string };

interface RequestHead {
  raw: Buffer;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  identity: Identity | undefined;
  bytes: number;
}

export interface Enforcement {
  evaluator: PolicyEvaluator;
}

let installed: Enforcement | undefined;

/**
 * Holds every request of this thread to the local AWS endpoints to its caller's role (once per
 * thread; a second call returns the first). `onDenied` is told of each call refused.
 */
export function enforceIam(setup: IamSetup, onDenied: (denial: Denial) => void): Enforcement {
  if (installed) return installed;
  const evaluator = new PolicyEvaluator(setup);
  installed = { evaluator };
  const services = new Map<string, Service>(
    Object.entries(setup.addresses).map(([origin, service]) => {
      const { hostname, port } = new URL(origin);
      return [`${hostname}:${port}`, service];
    }),
  );
  const secretArn = (id: string) => setup.secretArns.find((arn) => arn === id || secretNameOf(arn) === id) ?? id;

  /** What the request asks for: from its method and path, and for most services its body. */
  const askedOf = (service: Service, method: string, url: string, headers: IncomingHttpHeaders, body: Buffer) => {
    if (service === 's3') {
      const keys = [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1] ?? '');
      const copySource = headers['x-amz-copy-source'];
      return s3Actions(method, url, keys, typeof copySource === 'string' ? copySource : undefined);
    }
    if (service === 'sts')
      return stsActions(new URLSearchParams(body.toString('utf8')), (arn) => setup.roles[arn]?.tags ?? {});
    let parsed: Record<string, unknown> = {};
    try {
      parsed = body.length > 0 ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      // Not JSON: the service refuses it on its own.
    }
    return jsonActions(service, String(headers['x-amz-target'] ?? ''), parsed, {
      partitionKey: setup.partitionKey,
      secretArn,
    });
  };

  /** The first of the actions the identity may not take, or null: at once when every decision is kept. */
  const refusalOf = (identity: Identity, asked: AskedAction[]): Refusal | null | Promise<Refusal | null> => {
    for (const [index, each] of asked.entries()) {
      // A role is assumed as its trust policy allows: that is the resource policy of sts:AssumeRole.
      const decision: Decision | Promise<Decision> =
        each.action === 'sts:AssumeRole'
          ? evaluator.decide(identity, each, setup.roles[each.resource]?.trustPolicy ?? { Statement: [] })
          : evaluator.decide(identity, each);
      if (decision instanceof Promise)
        return decision.then(async (reason) =>
          reason === null ? refusalOf(identity, asked.slice(index + 1)) : { asked: each, reason },
        );
      if (decision !== null) return { asked: each, reason: decision };
    }
    return null;
  };

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const [first] = args;
    const options = (
      Array.isArray(first) ? first[0] : typeof first === 'object' ? first : { port: first, host: args[1] }
    ) as { host?: string; port?: number | string } | undefined;
    const service =
      options?.port === undefined ? undefined : services.get(`${options.host ?? 'localhost'}:${options.port}`);
    const socket = (connect as (...all: unknown[]) => net.Socket).apply(this, args);
    // After connect, which puts back the prototype's write.
    if (service) guard(this, service);
    return socket;
  } as typeof net.Socket.prototype.connect;

  /**
   * Reads the HTTP/1.1 requests written to a connection to a local AWS endpoint, each held back until
   * its decision is made (from its head alone where the action shows there, from its whole body
   * otherwise; at once when kept): allowed, its bytes go out as written; denied, none do, and the
   * service's AccessDenied answer is handed to the client as if the endpoint had sent it. Node's
   * HTTP client and the service's own (shared/adapters/http1-post.ts) write requests this way, and
   * neither sends the next request on a connection before the answer to the last (no pipelining).
   */
  function guard(socket: net.Socket, service: Service) {
    const write = socket.write.bind(socket) as (chunk: Buffer) => boolean;
    /** Written and neither passed on nor dropped yet. */
    let held: Buffer = Buffer.alloc(0);
    const callbacks: ((error?: Error | null) => void)[] = [];
    let current: { head: RequestHead; body: BodyScanner; fate: 'pass' | 'drop' | null } | null = null;
    let deciding = false;

    // Runs until it needs bytes not written yet or a decision not made yet. A request may be whole
    // before its decision is made (a GET or HEAD has no body): it is passed on once decided, though
    // nothing more is written.
    const advance = () => {
      while (!deciding) {
        if (!current) {
          const end = held.indexOf('\r\n\r\n');
          if (end < 0) break;
          const head = readHead(held.subarray(0, end + 4));
          held = held.subarray(end + 4);
          current = { head, body: new BodyScanner(head.headers), fate: head.identity ? null : 'pass' };
          current.body.pending = head.bytes;
        }
        const request = current;
        if (request.fate === null) {
          const needsBody = service !== 's3' || (request.head.method === 'POST' && request.head.url.includes('delete'));
          const body = needsBody ? request.body.whole(held) : Buffer.alloc(0);
          if (body === null) return;
          const identity = request.head.identity as Identity;
          const refusal = refusalOf(
            identity,
            askedOf(service, request.head.method, request.head.url, request.head.headers, body),
          );
          const settle = (made: Refusal | null) => {
            request.fate = made === null ? 'pass' : 'drop';
            if (made !== null) answerDenied(socket, service, request.head.method, identity, made);
          };
          if (refusal instanceof Promise) {
            deciding = true;
            refusal.then(
              (made) => {
                deciding = false;
                settle(made);
                advance();
              },
              (error: unknown) => socket.destroy(error as Error),
            );
            return;
          }
          settle(refusal);
        }
        // The head (not passed on yet) and as much of the body as was written go, or are dropped.
        const { taken, ended } = request.body.take(held);
        const part = held.subarray(0, taken);
        held = held.subarray(taken);
        if (request.fate === 'pass' && (request.body.pending > 0 || taken > 0)) {
          write(request.body.pending > 0 ? Buffer.concat([request.head.raw, part]) : Buffer.from(part));
          request.body.pending = 0;
        }
        if (ended) current = null;
        // Not ended: every byte written so far was taken, and the rest of the body is still to come.
        else break;
      }
      if (held.length === 0 && !deciding) for (const callback of callbacks.splice(0)) process.nextTick(callback);
    };

    socket.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      const done = [encoding, callback].find((argument) => typeof argument === 'function') as
        | ((error?: Error | null) => void)
        | undefined;
      const bytes = Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : Buffer.from(chunk as Uint8Array);
      held = held.length === 0 ? bytes : Buffer.concat([held, bytes]);
      if (done) callbacks.push(done);
      advance();
      return true;
    }) as typeof socket.write;
  }

  /** A request's head: its method, path, headers and the identity its credentials name. */
  function readHead(raw: Buffer): RequestHead {
    const [requestLine = '', ...lines] = raw.toString('latin1').split('\r\n');
    const [method = 'GET', url = '/'] = requestLine.split(' ');
    const headers: IncomingHttpHeaders = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const key = accessKeyOf({ headers, url });
    const token = headers['x-amz-security-token'];
    const identity =
      (key ? setup.identities[key] : undefined) ?? sessionOf(typeof token === 'string' ? token : undefined);
    return { raw: Buffer.from(raw), method, url, headers, identity, bytes: raw.length };
  }

  /** Hands the client the service's answer to a denied call, as if the endpoint had sent it. */
  function answerDenied(socket: net.Socket, service: Service, method: string, identity: Identity, refusal: Refusal) {
    const { asked, reason } = refusal;
    onDenied({ ...identity, action: asked.action, resource: asked.resource, reason });
    const resource = service === 's3' ? `"${asked.resource}"` : asked.resource;
    const answer = deniedAnswer(
      service,
      method,
      `User: ${sessionArn(identity)} is not authorized to perform: ${asked.action} on resource: ${resource} ${reason}`,
    );
    const body = Buffer.from(answer.body);
    const head = [
      `HTTP/1.1 ${answer.status} ${answer.status === 403 ? 'Forbidden' : 'Bad Request'}`,
      ...Object.entries(answer.headers).map(([name, value]) => `${name}: ${value}`),
      `content-length: ${body.length}`,
      '',
      '',
    ].join('\r\n');
    setImmediate(() => socket.push(method === 'HEAD' ? Buffer.from(head) : Buffer.concat([Buffer.from(head), body])));
  }

  return installed;
}

/**
 * Where a request's body ends, read as it is written: after Content-Length bytes, or after the last
 * chunk of a chunked body, its trailer and the empty line.
 */
class BodyScanner {
  /** Bytes of the head not passed on yet (its whole length until the first part of the request goes). */
  pending = 0;
  private left: number;
  private readonly chunked: boolean;
  /** Chunked: where in the coding the next byte is, and the size line or trailer line read so far. */
  private state: 'size' | 'data' | 'data-end' | 'trailer' = 'size';
  private line = '';
  private chunkLeft = 0;
  private readonly decoded: Buffer[] = [];

  constructor(headers: IncomingHttpHeaders) {
    this.chunked = /chunked/i.test(String(headers['transfer-encoding'] ?? ''));
    this.left = this.chunked ? 0 : Number(headers['content-length'] ?? 0);
  }

  /** How many of `bytes` (what follows what was taken before) belong to the body, and whether it ends there. */
  take(bytes: Buffer): { taken: number; ended: boolean } {
    if (!this.chunked) {
      const taken = Math.min(this.left, bytes.length);
      this.left -= taken;
      return { taken, ended: this.left === 0 };
    }
    let at = 0;
    while (at < bytes.length) {
      if (this.state === 'data') {
        const taken = Math.min(this.chunkLeft, bytes.length - at);
        this.decoded.push(bytes.subarray(at, at + taken));
        this.chunkLeft -= taken;
        at += taken;
        if (this.chunkLeft === 0) this.state = 'data-end';
        continue;
      }
      const byte = bytes[at++] as number;
      if (byte !== 0x0a) {
        if (byte !== 0x0d) this.line += String.fromCharCode(byte);
        continue;
      }
      const line = this.line;
      this.line = '';
      if (this.state === 'data-end') this.state = 'size';
      else if (this.state === 'size') {
        this.chunkLeft = Number.parseInt(line, 16);
        this.state = this.chunkLeft > 0 ? 'data' : 'trailer';
      } else if (line === '') return { taken: at, ended: true };
    }
    return { taken: at, ended: false };
  }

  /** The whole body without its coding, when `bytes` hold all of it (taking nothing), else null. */
  whole(bytes: Buffer): Buffer | null {
    if (!this.chunked) return bytes.length >= this.left ? bytes.subarray(0, this.left) : null;
    const copy = new BodyScanner({ 'transfer-encoding': 'chunked' });
    return copy.take(bytes).ended ? Buffer.concat(copy.decoded) : null;
  }
}
