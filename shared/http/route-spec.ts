/**
 * What an HTTP route is: method and path, how callers authenticate, its schemas and responses, and
 * what its function may touch. The route table (shared/routes.ts) is made of these; the HTTP layer
 * needs only the shape, never the table.
 */
import type { z } from 'zod';
import type { Permission } from '../domain/authorization.ts';
import type { Access, FunctionSettings } from '../topology.ts';

export type AuthKind = 'public' | 'apiKey' | 'ingestToken';
/** `ANY`: every method that no route of the same path names (API Gateway's `ANY`). */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'ANY';

/**
 * Whose conventions a route follows. Absent: Tributary's own (the key in `X-API-Key`, JSON bodies, the
 * contract's error body). `iceberg`: the Apache Iceberg REST catalog's: the API key comes as
 * `Authorization: Bearer`, every error is in Iceberg's error model `{error: {message, type, code}}`, and a
 * request body is never read (the catalog is read-only: a route that would take one refuses the request).
 * `oauth2`: the catalog's token endpoint (RFC 6749): a form-encoded body, errors as `{error, error_description}`.
 */
export type Protocol = 'iceberg' | 'oauth2';

/** A response body that is not JSON, e.g. Prometheus text or an HTML page. */
export interface MediaBody {
  mediaType: string;
  description: string;
}

/** A response that comes in several media types (a provider's handshake: JSON or text); null: a plain string. */
export interface MediaBodies {
  description: string;
  content: Record<string, z.ZodType | null>;
}

export interface RouteSpec {
  /** Handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  auth: AuthKind;
  /** Required for apiKey routes: the permission the caller's role must hold. */
  permission?: Permission;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** For a route that takes any body as is (the ingest endpoint): what it does with it. */
  rawBody?: string;
  /**
   * Statuses with a body of their own (every success, and the health check's 503): JSON (a schema),
   * another media type, or none (null). Every other error uses the error shape.
   */
  responses: Partial<Record<200 | 201 | 202 | 204 | 503, z.ZodType | MediaBody | MediaBodies | null>>;
  access: Access;
  protocol?: Protocol;
  function?: FunctionSettings;
  /**
   * A throttle of the deployment's own for this route (`ingest`: the ingestThrottle values, which
   * every tenant's webhooks share). Without it, the route has the stage's default throttle.
   */
  throttle?: 'ingest';
}

/** `POST /api/tenants` → its method and path. */
export function routeKeyParts(key: string): { method: HttpMethod; path: string } {
  const [method, path] = key.split(' ') as [HttpMethod, string];
  return { method, path };
}
