/**
 * The handler pattern for HTTP routes. A route's handler file reads like a sentence:
 *
 *   export const handler = apiHandler(tenantRoutes, 'POST /api/tenants', async ({ principal, body }) =>
 *     created(await createTenant(deps, principal, body)));
 *
 * The handler names its route group (shared/routes/<group>.ts) rather than the whole table, so its
 * bundle carries only that group's schemas.
 *
 * Everything else happens here, once: the request id, structured logs, authentication, the
 * permission check from the route table, strict parsing of params, query and body against the
 * route's zod schemas, and one error edge that turns every failure into the contract's error body.
 * The key store is handed in (apiEdge): shared/api-handler.ts binds it to the table.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import { authenticate, type CredentialLookup } from '../domain/identity/authenticate.ts';
import { type Principal, requirePermission } from '../domain/principal.ts';
import { type EdgeOptions, functionEdge } from '../observability/invocation.ts';
import { logger } from '../observability/logger.ts';
import { clientAddress, type EdgeOriginOptions, edgeOriginCheck, originSecretEnv } from './edge-origin.ts';
import { protocolErrorResult } from './protocol-errors.ts';
import { bearerToken, header, parseFormBody, parseJsonBody, parseWith } from './request.ts';
import { errorResult, type HttpResult, toApiGatewayResult } from './responses.ts';
import type { Protocol, RouteSpec } from './route-spec.ts';

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface ApiRequest<R extends RouteSpec> {
  principal: R['auth'] extends 'apiKey' ? Principal : null;
  params: R extends { params: infer S } ? Parsed<S> : Record<string, string>;
  query: R extends { query: infer S } ? Parsed<S> : undefined;
  body: R extends { body: infer S } ? Parsed<S> : undefined;
  event: APIGatewayProxyEventV2;
  requestId: string;
}

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export function requestIdOf(event: APIGatewayProxyEventV2): string {
  return event.requestContext?.requestId ?? 'unknown';
}

export type HttpEdgeOptions = Pick<
  EdgeOptions<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>,
  'handlerKeepsTime' | 'deferredWithinMs'
> & {
  /** Where the edge's origin secret is read (default: the deployment's, EDGE_ORIGIN_SECRET_ARN, if set). */
  origin?: EdgeOriginOptions;
  /**
   * The error body of a route that follows another protocol (RouteSpec.protocol), or, for the
   * function that answers every path no route matches, the protocol of the path asked for.
   */
  protocol?: Protocol | ((event: APIGatewayProxyEventV2) => Protocol | undefined) | undefined;
};

/** The deployment's origin secret, when it has the edge on; its client is loaded only then. */
function deployedOrigin(): EdgeOriginOptions {
  const secretId = process.env[originSecretEnv];
  if (!secretId) return {};
  return {
    secretValues: async () => (await import('../adapters/edge-origin-secret.ts')).originSecretValues(secretId),
  };
}

/**
 * The edge every HTTP function shares: the function edge (logger context, deferred work done before
 * answering), the check that the request came through the deployment's edge when it has one
 * (shared/http/edge-origin.ts, before anything reads), the request id, route and client address in
 * every log line, and the error body for every failure.
 * API Gateway's access log has a line per request; the function adds one at DEBUG, and logs a 5xx
 * with its cause. The handler is the last thing attached.
 */
export function httpEdge(routeKey: string, inner: LambdaHandler, options: HttpEdgeOptions = {}): LambdaHandler {
  const { origin, protocol, ...edgeOptions } = options;
  let originCheck: ReturnType<typeof edgeOriginCheck> | undefined;
  return functionEdge<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(inner, {
    ...edgeOptions,
    middleware: {
      before: async (request) => {
        logger.appendKeys({ request_id: requestIdOf(request.event), route: routeKey });
        // First of all: a request that walked around the deployment's edge goes no further.
        originCheck ??= edgeOriginCheck(origin ?? deployedOrigin());
        await originCheck(request.event);
        logger.appendKeys({ client_address: clientAddress(request.event) });
      },
      after: (request) => {
        logger.debug('request', { status: request.response?.statusCode });
      },
      onError: (request) => {
        const requestId = requestIdOf(request.event);
        const errorProtocol = typeof protocol === 'function' ? protocol(request.event) : protocol;
        request.response = errorProtocol
          ? protocolErrorResult(errorProtocol, request.error, requestId)
          : errorResult(request.error, requestId);
        logger.debug('request', { status: request.response.statusCode });
      },
    },
  });
}

/** The request body as the route's protocol sends it; the catalog reads none (it refuses every write). */
function bodyOf(route: RouteSpec, event: APIGatewayProxyEventV2): unknown {
  if (route.protocol === 'oauth2') return parseFormBody(event, route.body);
  if (route.protocol === 'iceberg') return undefined;
  return parseJsonBody(event, route.body);
}

/**
 * The API edge over a key store. `loadCredentials` runs with the first authenticated request, so
 * that a public route (/live, /docs, /openapi.json) never loads what the store needs.
 */
export function apiEdge(loadCredentials: () => Promise<CredentialLookup>, origin?: EdgeOriginOptions) {
  let credentials: Promise<CredentialLookup> | undefined;
  return function apiHandler<T extends Record<string, RouteSpec>, K extends keyof T & string>(
    group: T,
    routeKey: K,
    handle: (request: ApiRequest<T[K]>) => Promise<HttpResult>,
  ): LambdaHandler {
    const route: RouteSpec = group[routeKey] as RouteSpec;
    return httpEdge(
      routeKey,
      async (event) => {
        const requestId = requestIdOf(event);
        let principal: Principal | null = null;
        if (route.auth === 'apiKey') {
          credentials ??= loadCredentials();
          principal = await authenticate(
            await credentials,
            route.protocol === 'iceberg' ? bearerToken(event) : header(event, 'x-api-key'),
          );
          logger.appendKeys({
            principal_role: principal.role,
            ...(principal.kind === 'tenant' ? { tenant_id: principal.tenantId } : {}),
          });
          if (route.permission) requirePermission(principal, route.permission);
        }
        const params = route.params
          ? parseWith(route.params, event.pathParameters ?? {}, 'path')
          : (event.pathParameters ?? {});
        const query = route.query
          ? parseWith(route.query, event.queryStringParameters ?? {}, 'query string')
          : undefined;
        const body = bodyOf(route, event);
        const result = await handle({ principal, params, query, body, event, requestId } as ApiRequest<T[K]>);
        return toApiGatewayResult(result, requestId);
      },
      { protocol: route.protocol, ...(origin && { origin }) },
    );
  };
}
