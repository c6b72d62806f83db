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
 * decision is kept costs a lookup. Every HTTP request of the thread goes through node:http's
 * `request`, the AWS SDK's included (each bundle's own copy of it looks `request` up when its first
 * client is made), so the check is the one door every call passes.
 *
 * The credentials name the caller: a function's access key (`LOCAL<name>`, set in its environment)
 * or a session STS issued locally, whose token carries the role and session policy it was assumed
 * with (local/iam/local-services.ts), so that any thread can read it without asking another.
 */

import { randomUUID } from 'node:crypto';
import http, { type ClientRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { Readable } from 'node:stream';
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

  const send = http.request;
  http.request = function (this: unknown, ...args: Parameters<typeof http.request>) {
    const [options] = args;
    if (typeof options !== 'object' || options instanceof URL) return send.apply(this, args);
    const { hostname, host, port, method = 'GET', path = '/' } = options as RequestOptions;
    const service = services.get(`${hostname ?? host}:${port}`);
    if (!service) return send.apply(this, args);
    const headers = Object.fromEntries(
      Object.entries((options as RequestOptions).headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
    ) as IncomingHttpHeaders;
    const key = accessKeyOf({ headers, url: path ?? '/' });
    const token = headers['x-amz-security-token'];
    const identity =
      (key ? setup.identities[key] : undefined) ?? sessionOf(typeof token === 'string' ? token : undefined);
    const request = send.apply(this, args);
    if (identity) holdUntilDecided(request, service, method, path ?? '/', headers, identity);
    return request;
  } as typeof http.request;

  /**
   * The request's body is kept back until its end, when the decision is made (at once when kept):
   * allowed, the body goes out; denied, nothing does, and the caller is answered AccessDenied.
   */
  function holdUntilDecided(
    request: ClientRequest,
    service: Service,
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    identity: Identity,
  ) {
    const write = request.write;
    const end = request.end;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : typeof chunk === 'string'
            ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
            : Buffer.from(chunk as Uint8Array),
      );
    };
    request.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
      keep(chunk, encoding);
      const done = [encoding, callback].find((argument) => typeof argument === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    }) as typeof request.write;
    request.end = ((chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      keep(chunk, encoding);
      const done = [chunk, encoding, callback].find((argument) => typeof argument === 'function') as
        | (() => void)
        | undefined;
      const body = Buffer.concat(chunks);
      const go = (refusal: Refusal | null) => {
        request.write = write;
        request.end = end;
        if (refusal === null) {
          const finish = end as (chunk?: Buffer, callback?: () => void) => ClientRequest;
          finish.call(request, body.length > 0 ? body : undefined, done);
          return;
        }
        refuse(request, service, method, identity, refusal);
      };
      const refusal = refusalOf(identity, askedOf(service, method, path, headers, body));
      if (refusal instanceof Promise)
        refusal.then(go, (error: unknown) => {
          request.write = write;
          request.end = end;
          request.destroy(error as Error);
        });
      else go(refusal);
      return request;
    }) as typeof request.end;
  }

  /** Answers the caller as the service answers a denied call, and drops the request unsent. */
  function refuse(request: ClientRequest, service: Service, method: string, identity: Identity, refusal: Refusal) {
    const { asked, reason } = refusal;
    onDenied({ ...identity, action: asked.action, resource: asked.resource, reason });
    const resource = service === 's3' ? `"${asked.resource}"` : asked.resource;
    const answer = deniedAnswer(
      service,
      method,
      `User: ${sessionArn(identity)} is not authorized to perform: ${asked.action} on resource: ${resource} ${reason}`,
    );
    const response = Object.assign(Readable.from(answer.body ? [Buffer.from(answer.body)] : []), {
      statusCode: answer.status,
      statusMessage: answer.status === 403 ? 'Forbidden' : 'Bad Request',
      headers: answer.headers,
      rawHeaders: Object.entries(answer.headers).flat(),
      httpVersion: '1.1',
    });
    // Its socket (if it has one yet) is released; the caller, answered already, hears nothing more.
    request.on('error', () => undefined);
    process.nextTick(() => {
      request.emit('response', response);
      request.destroy();
    });
  }

  return installed;
}
