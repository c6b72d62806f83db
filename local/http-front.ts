/**
 * The local HTTP front: API Gateway's HTTP API, on one port. It matches each request against the
 * route table, builds the payload-2.0 event API Gateway would send, invokes the route's handler,
 * and writes the handler's result back. Unmatched requests go to the `$default` route's handler.
 *
 * What it refuses itself, in the contract's error shape, as API Gateway would before any handler:
 *  - a body over 10 MiB: 413 at once when the declared Content-Length is larger, or as soon as a
 *    chunked body passes it, and the connection is closed;
 *  - a request that does not arrive in time (headers within 10 s, headers and body within 30 s):
 *    408, so a client sending a byte now and then cannot hold a connection for ever;
 *  - what Node's parser refuses: headers over 10 KB (431; API Gateway's quota for an HTTP API's request line and
 *    headers is 10,240 bytes), a malformed request (400);
 *  - anything once a stop has begun: 503 with `Connection: close`, on new and kept-alive
 *    connections alike, while the requests already in flight finish.
 *
 * What API Gateway's HTTP API answers when the integration fails, as it answers it (`apiGateway`):
 *  - the function failed: an error, its timeout (the runtime stops the invocation there:
 *    local/lambda-function.ts), a response larger than Lambda's 6 MB: 500
 *    `{"message":"Internal Server Error"}` ("Troubleshooting issues with HTTP API Lambda
 *    integrations", API Gateway developer guide);
 *  - no answer within the integration timeout (30 s, "Quotas for configuring and running an HTTP
 *    API"): 503 `{"message":"Service Unavailable"}`;
 *  - an event larger than a synchronous invocation carries (Lambda: "Request must be smaller than
 *    6291456 bytes for the InvokeFunction operation", RequestEntityTooLargeException): 413
 *    `{"message":"Request Too Long"}`, as API Gateway answered it in a report of that limit
 *    (github.com/koki-develop/lgtm-generator issue 10, with x-amzn-errortype BadRequestException).
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ErrorCode } from '#shared/domain/errors.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { notFoundRoute, type RouteSpec, routeKeyParts, routes } from '#shared/routes.ts';
import { functionNameOf, lambdaContext, withTimeout } from './lambda-context.ts';

export type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** A route of the API: its key (`POST /api/ingest/{source_id}`, or `$default`) and what it invokes. */
export interface FrontRoute {
  routeKey: string;
  /** What `loadHandler` is asked for. */
  target: string;
  /** The function's timeout, given to the handler's context. */
  timeoutSeconds?: number;
}

interface CompiledRoute {
  key: string;
  method: string;
  pattern: RegExp;
  paramNames: string[];
  /** Static segments win over parameters, and parameters over greedy tails, as in API Gateway. */
  rank: number[];
  route: FrontRoute;
}

const defaultTimeoutSeconds = 29;

/** The route table's routes, each invoking its handler module (the front's own tests). */
export function routeTable(): FrontRoute[] {
  return [
    ...(Object.entries(routes) as [string, RouteSpec][]).map(([key, spec]) => ({
      routeKey: key,
      target: spec.entry,
      timeoutSeconds: spec.function?.timeoutSeconds,
    })),
    { routeKey: '$default', target: notFoundRoute.entry },
  ];
}

/** The routes with a method and path (the `$default` route catches what none of them matches). */
export function compileRoutes(given: FrontRoute[] = routeTable()): CompiledRoute[] {
  const compiled = given
    .filter((route) => route.routeKey !== '$default')
    .map((route) => {
      const key = route.routeKey;
      const { method, path: template } = routeKeyParts(key);
      const paramNames: string[] = [];
      const segments = template.split('/').filter(Boolean);
      const rank = segments.map((segment) => (segment.endsWith('+}') ? 2 : segment.startsWith('{') ? 1 : 0));
      const pattern = segments
        .map((segment) => {
          const greedy = /^\{(\w+)\+\}$/.exec(segment);
          if (greedy?.[1]) {
            paramNames.push(greedy[1]);
            return '(.+)';
          }
          const param = /^\{(\w+)\}$/.exec(segment);
          if (param?.[1]) {
            paramNames.push(param[1]);
            return '([^/]+)';
          }
          return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        })
        .join('/');
      return { key, method, pattern: new RegExp(`^/${pattern}/?$`), paramNames, rank, route };
    });
  return compiled.sort((a, b) => {
    for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
      const difference = (a.rank[i] ?? -1) - (b.rank[i] ?? -1);
      if (difference !== 0) return difference;
    }
    // The same path: a route naming the method wins over `ANY`, as in API Gateway.
    return Number(a.method === 'ANY') - Number(b.method === 'ANY');
  });
}

function matchRoute(compiled: CompiledRoute[], method: string, rawPath: string) {
  for (const route of compiled) {
    if (route.method !== method && route.method !== 'ANY') continue;
    const match = route.pattern.exec(rawPath);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    route.paramNames.forEach((name, index) => {
      const value = match[index + 1] as string;
      pathParameters[name] = value
        .split('/')
        .map((part) => {
          try {
            return decodeURIComponent(part);
          } catch {
            return part;
          }
        })
        .join('/');
    });
    return { route, pathParameters };
  }
  return null;
}

function isTextual(contentType: string | undefined): boolean {
  if (!contentType) return true;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    mediaType.startsWith('text/') ||
    /^application\/(json|xml|javascript|x-www-form-urlencoded)$/.test(mediaType) ||
    mediaType.endsWith('+json') ||
    mediaType.endsWith('+xml')
  );
}

/**
 * The path exactly as sent, as API Gateway passes it on: WHATWG URL parsing would resolve "." and
 * ".." segments (even percent-encoded ones) before any handler could refuse them.
 */
export function rawPathOf(requestUrl: string | undefined): string {
  const path = (requestUrl ?? '/').split('?')[0] ?? '/';
  return path.startsWith('/') ? path : `/${path}`;
}

/** The query string exactly as sent (without its "?"), as API Gateway passes it on. */
export function rawQueryOf(requestUrl: string | undefined): string {
  const url = (requestUrl ?? '').split('#')[0] ?? '';
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}

/** Multi-valued headers and query parameters are joined with commas, as payload 2.0 does. */
export function buildEvent(
  request: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
): APIGatewayProxyEventV2 {
  // Most requests carry no query string: they need no URL parsed.
  const url = request.url?.includes('?') ? new URL(request.url, 'http://local') : null;
  const rawPath = rawPathOf(request.url);
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] as string).toLowerCase();
    const value = request.rawHeaders[i + 1] as string;
    if (name === 'cookie') {
      cookies.push(...value.split(';').map((cookie) => cookie.trim()));
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url?.searchParams ?? [])
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  const encodeAsBase64 = body.length > 0 && (!isTextual(headers['content-type']) || !isUtf8(body));
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath,
    // As sent: WHATWG URL serialisation would percent-encode ' " < > and non-ASCII characters, and a scheme that
    // signs the URL (Twilio) signs what the sender sent.
    rawQueryString: rawQueryOf(request.url),
    cookies: cookies.length > 0 ? cookies : undefined,
    headers,
    queryStringParameters: Object.keys(query).length > 0 ? query : undefined,
    pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method: request.method ?? 'GET',
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length > 0 ? body.toString(encodeAsBase64 ? 'base64' : 'utf8') : undefined,
    isBase64Encoded: encodeAsBase64,
  };
}

function writeResult(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body =
    result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = String(body.length);
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}

type FrontErrorCode = Extract<
  ErrorCode,
  | 'VALIDATION_ERROR'
  | 'PAYLOAD_TOO_LARGE'
  | 'REQUEST_TIMEOUT'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL'
  | 'SERVICE_UNAVAILABLE'
>;

/** The front's own answers (API Gateway's, on AWS), in the contract's error shape. */
export function frontErrorBody(code: FrontErrorCode, message: string): string {
  return JSON.stringify({ code, message, details: null, request_id: randomUUID() });
}

/** Lambda's limits on a synchronous invocation's request and response ("Lambda quotas"). */
export const invocationLimits = { requestBytes: 6_291_456, responseBytes: 6_291_556 };

/** API Gateway's own answers when the integration fails (see the header). */
export const apiGateway = {
  internalServerError: gatewayAnswer(500, 'Internal Server Error'),
  serviceUnavailable: gatewayAnswer(503, 'Service Unavailable'),
  requestTooLong: gatewayAnswer(413, 'Request Too Long', { 'x-amzn-errortype': 'BadRequestException' }),
};

function gatewayAnswer(
  statusCode: number,
  message: string,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ message }),
  };
}

class IntegrationTimeout extends Error {}

/** Bytes of an event or a result as Lambda counts them: its JSON. Measured only when it may be near the limit. */
function overLimit(value: unknown, roughBytes: number, limit: number): boolean {
  return roughBytes > limit / 2 && Buffer.byteLength(JSON.stringify(value)) > limit;
}

function frontError(code: FrontErrorCode, message: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: statusOfCode[code],
    headers: { 'content-type': 'application/json' },
    body: frontErrorBody(code, message),
  };
}

/**
 * Closes a connection after an answer without resetting it: closing a socket whose client is still
 * sending makes the kernel answer with a reset, which can destroy the answer in the client's buffer
 * before it is read. The socket is half-closed at once and destroyed after a short linger, reading
 * (and dropping) whatever still arrives meanwhile.
 */
function closeGently(socket: Socket): void {
  // Node's server would destroy the socket right after the answer is written; this closes it instead.
  socket.destroySoon = () => undefined;
  socket.end();
  socket.resume();
  setTimeout(() => socket.destroy(), lingerMs).unref();
}

export interface FrontLimits {
  /** Largest body (API Gateway's payload limit); a larger declared length is refused before it is read. */
  maxBodyBytes: number;
  /** How long a handler may take to answer (API Gateway's integration timeout). */
  integrationTimeoutMs: number;
  /** Time for a request's headers to arrive. */
  headersTimeoutMs: number;
  /** Time for a whole request, headers and body, to arrive. */
  requestTimeoutMs: number;
}

export const defaultLimits: FrontLimits = {
  maxBodyBytes: 10 * 1024 * 1024,
  integrationTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
};

/** API Gateway's quota for an HTTP API's request line and headers (10,240 bytes), held by Node's parser (431 above it). */
const maxHeaderBytes = 10 * 1024;
const lingerMs = 2000;

export interface HttpFront {
  url: string;
  server: Server;
  /**
   * Stops taking requests: from now on every new request, on a new or a kept-alive connection, is
   * answered 503 with `Connection: close`. Resolves once the requests in flight have been answered.
   */
  refuse(): Promise<void>;
  /** Closes the listener and every connection. */
  close(): Promise<void>;
}

export interface HttpFrontOptions {
  port: number;
  host: string;
  limits?: Partial<FrontLimits>;
  /** The API's routes (default: the route table's, each invoking its handler module). */
  routes?: FrontRoute[];
  /** Loads what a route invokes (its `target`); tests stand in their own. */
  loadHandler: (target: string) => Promise<Handler>;
  /** Every handler's time limit, in place of its route's function timeout (tests). */
  functionTimeoutSeconds?: number;
}

export async function startHttpFront(options: HttpFrontOptions): Promise<HttpFront> {
  const limits = { ...defaultLimits, ...options.limits };
  const given = options.routes ?? routeTable();
  const compiled = compileRoutes(given);
  const fallback = given.find((route) => route.routeKey === '$default');
  const handlers = new Map<string, Promise<Handler>>();
  const load = (target: string): Promise<Handler> => {
    let handler = handlers.get(target);
    if (!handler) {
      handler = options.loadHandler(target);
      handlers.set(target, handler);
    }
    return handler;
  };
  // Load every handler up front: a broken import fails the start, not the first request.
  await Promise.all(given.map((route) => load(route.target)));

  let refusing = false;
  let inFlight = 0;
  let drained: (() => void) | null = null;

  /** Answers at once and closes the connection, whatever the request still has to send. */
  function answerAndClose(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
    if (response.headersSent) return;
    response.shouldKeepAlive = false;
    writeResult(response, { ...result, headers: { ...result.headers, connection: 'close' } });
    closeGently(response.socket as Socket);
  }

  /**
   * Routes matched lately, by method and raw path: a busy webhook source sends the same path on
   * every request. Each request gets path parameters of its own.
   */
  const recentMatches = new Map<string, ReturnType<typeof matchRoute>>();
  function routeOf(method: string, rawPath: string): ReturnType<typeof matchRoute> {
    const key = `${method} ${rawPath}`;
    let matched = recentMatches.get(key);
    if (matched === undefined) {
      matched = matchRoute(compiled, method, rawPath);
      if (recentMatches.size >= 1000) recentMatches.clear();
      recentMatches.set(key, matched);
    }
    return matched && { route: matched.route, pathParameters: { ...matched.pathParameters } };
  }

  async function invoke(request: IncomingMessage, body: Buffer): Promise<APIGatewayProxyStructuredResultV2> {
    const matched = routeOf(request.method ?? 'GET', rawPathOf(request.url));
    const route = matched?.route.route ?? fallback;
    // API Gateway's own answer to a request no route matches, when the API has no $default route.
    if (!route)
      return { statusCode: 404, headers: { 'content-type': 'application/json' }, body: '{"message":"Not Found"}' };
    const routeKey = route.routeKey;
    const event = buildEvent(request, body, routeKey, matched?.pathParameters);
    // A base64 body takes 4/3 of its bytes, and the event some more around it.
    if (overLimit(event, body.length * 1.34 + 4096, invocationLimits.requestBytes)) return apiGateway.requestTooLong;
    const timeoutSeconds = options.functionTimeoutSeconds ?? route.timeoutSeconds ?? defaultTimeoutSeconds;
    const handler = await load(route.target);
    const integration = withTimeout(
      handler(event, lambdaContext(functionNameOf(route.target), timeoutSeconds)),
      limits.integrationTimeoutMs / 1000,
      routeKey,
    ).catch((error: Error) => {
      throw /timed out after/.test(error.message) && !error.name.startsWith('Sandbox')
        ? new IntegrationTimeout()
        : error;
    });
    try {
      const result = await integration;
      if (overLimit(result, (result?.body?.length ?? 0) * 1.01, invocationLimits.responseBytes)) {
        process.stderr.write(
          `${routeKey}: Function.ResponseSizeTooLarge: Response payload size exceeded maximum allowed payload size (${invocationLimits.responseBytes} bytes).\n`,
        );
        return apiGateway.internalServerError;
      }
      return result;
    } catch (error) {
      if (error instanceof IntegrationTimeout) {
        process.stderr.write(
          `${routeKey}: the integration timed out after ${limits.integrationTimeoutMs / 1000} s: answered 503\n`,
        );
        return apiGateway.serviceUnavailable;
      }
      // The function's own failure (it logs its errors; a timeout is logged by the runtime).
      if ((error as Error).name !== 'Sandbox.Timedout')
        process.stderr.write(`${routeKey}: the function failed: ${(error as Error).stack ?? error}\n`);
      return apiGateway.internalServerError;
    }
  }

  function serve(request: IncomingMessage, response: ServerResponse): void {
    if (refusing) {
      answerAndClose(response, frontError('SERVICE_UNAVAILABLE', 'The service is stopping; retry shortly'));
      return;
    }
    inFlight++;
    response.once('close', () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
    const tooLarge = () =>
      frontError('PAYLOAD_TOO_LARGE', `Request bodies are limited to ${limits.maxBodyBytes} bytes`);
    if (Number(request.headers['content-length'] ?? 0) > limits.maxBodyBytes) {
      answerAndClose(response, tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      if (response.headersSent) return;
      size += chunk.length;
      if (size > limits.maxBodyBytes) answerAndClose(response, tooLarge());
      else chunks.push(chunk);
    });
    request.on('end', async () => {
      if (response.headersSent) return;
      let result: APIGatewayProxyStructuredResultV2;
      try {
        result = await invoke(request, Buffer.concat(chunks));
      } catch (error) {
        process.stderr.write(`local http front: ${(error as Error).stack ?? error}\n`);
        result = apiGateway.internalServerError;
      }
      if (response.destroyed || response.headersSent) return;
      // A stop began meanwhile: this answer is the connection's last.
      if (refusing) response.shouldKeepAlive = false;
      writeResult(response, result);
    });
  }

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
      maxHeaderSize: maxHeaderBytes,
    },
    serve,
  );
  // A client that asks before sending its body (Expect: 100-continue) is told to go on only if
  // the body may be sent; otherwise it gets the refusal without sending a byte of it.
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (!refusing && Number(request.headers['content-length'] ?? 0) <= limits.maxBodyBytes) response.writeContinue();
    serve(request, response);
  });
  // An idle connection is closed after 65 s, longer than senders keep theirs (Node's agents 4–5 s,
  // told by the Keep-Alive header). With the 5 s Node uses by default, a quiet sender that reused its
  // connection as it was being closed got ECONNRESET for a request that never arrived (one in 6,000 at
  // 300 quiet connections, `npm run bench zipf`).
  server.keepAliveTimeout = 65_000;

  // Answers Node's parser makes itself (a bad request line, headers over 10 KB, a request that
  // takes too long to arrive), in the error shape, where the connection can still carry one.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const started = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const [code, message]: [FrontErrorCode, string] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? ['HEADERS_TOO_LARGE', `Request headers are limited to ${maxHeaderBytes / 1024} KB`]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? ['REQUEST_TIMEOUT', `A request must arrive whole within ${limits.requestTimeoutMs / 1000} s`]
          : ['VALIDATION_ERROR', 'Malformed HTTP request'];
    const body = frontErrorBody(code, message);
    const status = statusOfCode[code];
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    closeGently(socket);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${address.port}`,
    server,
    async refuse() {
      refusing = true;
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
    },
    async close() {
      refusing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
