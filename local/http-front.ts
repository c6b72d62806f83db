/**
 * The local HTTP front: API Gateway's HTTP API, on one port. It matches each request against the
 * route table, builds the payload-2.0 event API Gateway would send, invokes the route's handler,
 * and writes the handler's result back. Unmatched requests go to the `$default` route's handler.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { notFoundRoute, type RouteSpec, routeKeyParts, routes } from '#shared/routes.ts';
import { functionNameOf, lambdaContext, withTimeout } from './lambda-context.ts';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

interface CompiledRoute {
  key: string;
  method: string;
  pattern: RegExp;
  paramNames: string[];
  /** Static segments win over parameters, and parameters over greedy tails, as in API Gateway. */
  rank: number[];
  spec: Pick<RouteSpec, 'entry' | 'function'>;
}

/** API Gateway's payload limit for HTTP APIs. */
const maxPayloadBytes = 10 * 1024 * 1024;
const defaultTimeoutSeconds = 29;

export function compileRoutes(): CompiledRoute[] {
  const compiled = Object.entries(routes).map(([key, spec]) => {
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
    return { key, method, pattern: new RegExp(`^/${pattern}/?$`), paramNames, rank, spec: spec as RouteSpec };
  });
  return compiled.sort((a, b) => {
    for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
      const difference = (a.rank[i] ?? -1) - (b.rank[i] ?? -1);
      if (difference !== 0) return difference;
    }
    return 0;
  });
}

function matchRoute(compiled: CompiledRoute[], method: string, rawPath: string) {
  for (const route of compiled) {
    if (route.method !== method) continue;
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

function isValidUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The path exactly as sent, as API Gateway passes it on: WHATWG URL parsing would resolve "." and
 * ".." segments (even percent-encoded ones) before any handler could refuse them.
 */
export function rawPathOf(requestUrl: string | undefined): string {
  const path = (requestUrl ?? '/').split('?')[0] ?? '/';
  return path.startsWith('/') ? path : `/${path}`;
}

/** Multi-valued headers and query parameters are joined with commas, as payload 2.0 does. */
export function buildEvent(
  request: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://local');
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
  for (const [name, value] of url.searchParams)
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  const encodeAsBase64 = body.length > 0 && (!isTextual(headers['content-type']) || !isValidUtf8(body));
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: url.search.slice(1),
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

function gatewayError(status: number, message: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      code: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INTERNAL',
      message,
      details: null,
      request_id: randomUUID(),
    }),
  };
}

export interface HttpFront {
  url: string;
  server: Server;
  /** Stops accepting connections and waits for requests in flight. */
  close(): Promise<void>;
}

export async function startHttpFront(options: { port: number; host: string; root: string }): Promise<HttpFront> {
  const compiled = compileRoutes();
  const handlers = new Map<string, Promise<Handler>>();
  const load = (entry: string): Promise<Handler> => {
    let handler = handlers.get(entry);
    if (!handler) {
      handler = import(pathToFileURL(path.join(options.root, entry)).href).then((module) => module.handler as Handler);
      handlers.set(entry, handler);
    }
    return handler;
  };
  // Load every handler up front: a broken import fails the start, not the first request.
  await Promise.all([...compiled.map((route) => load(route.spec.entry)), load(notFoundRoute.entry)]);

  let inFlight = 0;
  let drained: (() => void) | null = null;

  const server = createServer((request, response) => {
    inFlight++;
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxPayloadBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', async () => {
      try {
        if (tooLarge) {
          writeResult(response, gatewayError(413, `Request bodies are limited to ${maxPayloadBytes} bytes`));
          return;
        }
        const matched = matchRoute(compiled, request.method ?? 'GET', rawPathOf(request.url));
        const entry = matched ? matched.route.spec.entry : notFoundRoute.entry;
        const routeKey = matched ? matched.route.key : '$default';
        const event = buildEvent(request, Buffer.concat(chunks), routeKey, matched?.pathParameters);
        const timeoutSeconds = matched?.route.spec.function?.timeoutSeconds ?? defaultTimeoutSeconds;
        const handler = await load(entry);
        const result = await withTimeout(
          handler(event, lambdaContext(functionNameOf(entry), timeoutSeconds)),
          timeoutSeconds,
          routeKey,
        );
        writeResult(response, result);
      } catch (error) {
        process.stderr.write(`local http front: ${(error as Error).stack ?? error}\n`);
        writeResult(response, gatewayError(500, 'Internal error'));
      } finally {
        inFlight--;
        if (inFlight === 0 && drained) drained();
      }
    });
  });
  server.keepAliveTimeout = 5000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${address.port}`,
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      server.closeAllConnections();
      await closed;
    },
  };
}
