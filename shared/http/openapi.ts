/**
 * The OpenAPI 3.1 document, generated from the route table (which the caller hands in) and the same
 * zod schemas the handlers parse with: nothing about the API is written down twice. Schemas with an id (`.meta({ id })`)
 * become components; request schemas are described as callers send them (defaults optional),
 * response schemas as the service answers them.
 */
import * as z from 'zod';
import { grants, type Permission, roles } from '../domain/authorization.ts';
import { statusOfCode } from './error-status.ts';
import { type HttpMethod, type MediaBodies, type MediaBody, type RouteSpec, routeKeyParts } from './route-spec.ts';
import { errorBody } from './schemas/common.ts';
import { icebergError, oauthError } from './schemas/iceberg.ts';

type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

export const apiVersion = '0.1.0';

const tagDescriptions: Record<string, string> = {
  Status: 'Liveness, health and Prometheus metrics.',
  Reference: 'This document and the API reference page built from it.',
  Tenants: 'Tenants, the object stores their data lands in, and their dashboard connection.',
  Users: 'Users of a tenant (or platform administrators) and their API keys.',
  Connections: 'Webhook sources: their bearer tokens, signature checks, limits and state.',
  Monitoring: 'What happened to deliveries: rejections, failed deliveries and their redrive, counts, runs.',
  Ingest: 'The webhook endpoint senders POST to.',
  'Data Sets': 'Delta Lake tables in the tenant’s store, written by webhooks or pipelines.',
  Pipelines:
    'Pipeline definitions: a working version to edit and a deployed version that runs (triggered, or on new data), decoding JSON, XML, form or NDJSON payloads into typed columns.',
  Jobs: 'Runs of pipelines, and queries over data sets.',
  Wiki: 'Markdown documents, global or per tenant, addressed by path.',
  'Iceberg catalog':
    'The Apache Iceberg REST catalog over the data sets, read-only (docs/lake.md): the API key as `Authorization: Bearer` (or exchanged at the token endpoint), errors in Iceberg’s error model.',
};

/**
 * The document's methods of a route: `ANY` (the catalog's refusal of everything it does not serve) is
 * documented as the writes it refuses.
 */
export function documentedMethods(method: HttpMethod): string[] {
  return method === 'ANY' ? ['post', 'put', 'delete'] : [method.toLowerCase()];
}

/** JSON Schema with its `$defs` moved into the document's components. */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly sources = new Map<string, string>();

  constructor() {
    // Every error response refers to one of them; each has an id, so it lands in `schemas` by its id.
    this.schema(errorBody, 'output');
    this.schema(icebergError, 'output');
    this.schema(oauthError, 'output');
  }

  schema(schema: z.ZodType, io: Io): JsonSchema {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const { $schema: _, $defs, ...root } = json as JsonSchema & { $defs?: Record<string, JsonSchema> };
    const names = new Map<string, string>();
    for (const [id, definition] of Object.entries($defs ?? {})) {
      const text = JSON.stringify(definition);
      // A schema with an id can read differently as input (defaults optional) than as output.
      const name = this.sources.has(id) && this.sources.get(id) !== text ? `${id}Input` : id;
      names.set(id, name);
      this.sources.set(name, text);
    }
    for (const [id, definition] of Object.entries($defs ?? {})) {
      this.schemas[names.get(id) as string] = rewriteRefs(definition, names) as JsonSchema;
    }
    return rewriteRefs(root, names) as JsonSchema;
  }
}

function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, names));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')) {
        const id = item.slice('#/$defs/'.length);
        return [key, `#/components/schemas/${names.get(id) ?? id}`];
      }
      return [key, rewriteRefs(item, names)];
    }),
  );
}

/** `functions/tenants/register-object-store.ts` → `tenantsRegisterObjectStore`: unique, as entries are. */
export function operationIdOf(spec: RouteSpec): string {
  const [, group = '', file = ''] = spec.entry.replace(/\.ts$/, '').split('/');
  return `${group}-${file}`.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/** API Gateway's greedy `{path+}` is OpenAPI's `{path}`; the parameter's description says it may hold slashes. */
export function openApiPath(routePath: string): string {
  return routePath.replace(/\{(\w+)\+\}/g, '{$1}');
}

function rolesHolding(permission: Permission): string {
  return roles.filter((role) => grants[role].has(permission)).join(', ');
}

function parameters(components: Components, spec: RouteSpec, routePath: string): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [location, schema] of [
    ['path', spec.params],
    ['query', spec.query],
  ] as const) {
    if (!schema) continue;
    const json = components.schema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const greedy = routePath.includes(`{${name}+}`);
      list.push({
        name,
        in: location,
        required: location === 'path' || (json.required ?? []).includes(name),
        ...(greedy ? { description: 'May contain `/`: everything after the prefix, as one value.' } : {}),
        schema: property,
      });
    }
  }
  return list;
}

function errorResponse(status: number | string, description: string) {
  const codes = Object.entries(statusOfCode)
    .filter(([, code]) => String(code) === String(status))
    .map(([name]) => `\`${name}\``);
  return {
    description: codes.length ? `${description}. Codes: ${codes.join(', ')}` : description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/** The error body of a route's protocol (RouteSpec.protocol). */
export const errorSchemaOf = (spec: RouteSpec): string =>
  spec.protocol === 'iceberg' ? 'IcebergError' : spec.protocol === 'oauth2' ? 'OAuthError' : 'Error';

/** The errors of a route of the Iceberg catalog or its token endpoint, in their own error models. */
function protocolErrorResponses(spec: RouteSpec): Record<string, unknown> {
  const schema = { 'application/json': { schema: { $ref: `#/components/schemas/${errorSchemaOf(spec)}` } } };
  const described = (description: string) => ({ description, content: schema });
  if (spec.protocol === 'oauth2')
    return {
      400: described('`invalid_request` (no client secret, a body that is not a form) or `unsupported_grant_type`'),
      401: described('`invalid_client`: the client secret is not a working Tributary API key'),
      '5XX': described('The service failed'),
    };
  return {
    400: described('`BadRequestException`: the path or query string does not match the schema'),
    401: described('`NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work'),
    403: described('`ForbiddenException`: a write (the catalog is read-only)'),
    404: described(
      '`NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route',
    ),
    422: described('The tenant’s object store failed (its category and S3 error code in the message)'),
    '5XX': described('`ServiceFailureException`: the service failed'),
    // A route that never succeeds (the refusal of writes) still says what it answers.
    ...(Object.keys(spec.responses).length === 0
      ? { default: described('Always an error: this route serves none') }
      : {}),
  };
}

/** The errors a route can answer, each in the error shape; `code` tells them apart. */
function errorResponses(spec: RouteSpec, method: string): Record<string, unknown> {
  if (spec.protocol) return protocolErrorResponses(spec);
  const responses: Record<string, unknown> = {};
  const add = (status: number | string, description: string) => {
    responses[status] = errorResponse(status, description);
  };
  const takesInput = spec.params || spec.query || spec.body || spec.rawBody;
  add(
    400,
    takesInput
      ? 'The path, query string or body does not match the schema (`details` says where)'
      : 'A request body, which this operation does not take',
  );
  if (spec.auth === 'apiKey') {
    add(401, 'No API key, or one that is unknown, revoked or expired');
    add(403, 'The key’s role does not hold the route’s permission');
    add(404, 'A resource named in the path, query or body does not exist or is not visible to the caller’s tenant');
    if (method !== 'GET') add(409, 'The resource’s current state or a unique name does not allow the change');
    if (spec.body) {
      add(413, 'The body is over the size limit');
      add(415, 'The body is not `application/json`');
    }
    add(
      422,
      'The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code)',
    );
  }
  if (spec.auth === 'ingestToken') {
    add(401, 'Missing or wrong bearer token, or a signature that does not verify');
    add(403, 'The sender’s address is outside the source’s allowlist');
    add(404, 'No such source');
    add(413, 'The body is over the size limit');
    add(422, 'The source is paused or not active');
    add(429, 'The source’s rate limit is exceeded; retry after `Retry-After` seconds');
  }
  add(
    '5XX',
    'The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry)',
  );
  return responses;
}

function successResponse(components: Components, status: number, body: z.ZodType | MediaBody | MediaBodies | null) {
  const description = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content', 503: 'Unhealthy' }[status];
  if (body === null) return { description: description ?? 'No body' };
  if ('content' in body && !(body instanceof z.ZodType))
    return {
      description: body.description,
      content: Object.fromEntries(
        Object.entries(body.content).map(([mediaType, schema]) => [
          mediaType,
          { schema: schema ? components.schema(schema, 'output') : { type: 'string' } },
        ]),
      ),
    };
  if ('mediaType' in body)
    return { description: body.description, content: { [body.mediaType]: { schema: { type: 'string' } } } };
  return { description, content: { 'application/json': { schema: components.schema(body, 'output') } } };
}

function operation(components: Components, key: string, spec: RouteSpec, documentedMethod: string) {
  const { method, path } = routeKeyParts(key);
  const responses: Record<string, unknown> = {};
  for (const [status, body] of Object.entries(spec.responses)) {
    responses[status] = successResponse(components, Number(status), body as z.ZodType | MediaBody | MediaBodies | null);
  }
  Object.assign(responses, errorResponses(spec, method));
  const security =
    spec.auth === 'apiKey'
      ? [spec.protocol === 'iceberg' ? { CatalogToken: [] } : { ApiKey: [] }]
      : spec.auth === 'ingestToken'
        ? [{ IngestToken: [] }, {}]
        : [];
  const description = [
    spec.permission ? `Permission \`${spec.permission}\`, held by: ${rolesHolding(spec.permission)}.` : '',
    spec.auth === 'ingestToken'
      ? 'Authenticated by the source’s bearer token, or, for a source that verifies signatures only, by the sender’s signature headers.'
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    operationId:
      method === 'ANY'
        ? `${operationIdOf(spec)}${documentedMethod.charAt(0).toUpperCase()}${documentedMethod.slice(1)}`
        : operationIdOf(spec),
    summary: spec.summary,
    ...(description ? { description } : {}),
    tags: [spec.tag],
    security,
    parameters: parameters(components, spec, path),
    ...(spec.body
      ? {
          requestBody: {
            required: true,
            content: {
              [spec.protocol === 'oauth2' ? 'application/x-www-form-urlencoded' : 'application/json']: {
                schema: components.schema(spec.body, 'input'),
              },
            },
          },
        }
      : {}),
    ...(spec.rawBody
      ? {
          requestBody: {
            required: false,
            description: spec.rawBody,
            content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
          },
        }
      : {}),
    responses,
  };
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: JsonSchema;
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, ReturnType<typeof operation>>>;
  components: JsonSchema;
}

/**
 * The whole document for a route table (shared/routes.ts); `serverUrl` is where the caller reached
 * the API (it defaults to the same origin).
 */
export function openApiDocument(routes: Record<string, RouteSpec>, serverUrl = '/'): OpenApiDocument {
  const components = new Components();
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  for (const [key, spec] of Object.entries(routes)) {
    const { method, path } = routeKeyParts(key);
    tags.add(spec.tag);
    const documentPath = openApiPath(path);
    for (const documented of documentedMethods(method))
      paths[documentPath] = { ...paths[documentPath], [documented]: operation(components, key, spec, documented) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tributary API',
      version: apiVersion,
      summary: 'Webhooks in, Delta Lake tables out: the management API and the ingest endpoint.',
      description:
        'Every error has the same body: `{ code, message, details, request_id }`. Lists are paged with `limit` and an opaque `cursor`; the next page’s cursor is `next_cursor` (null on the last page).',
    },
    servers: [{ url: serverUrl, description: 'This deployment' }],
    tags: [...tags].map((name) => ({ name, description: tagDescriptions[name] ?? name })),
    paths,
    components: {
      schemas: components.schemas,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'A user’s API key; the user’s role decides which routes it may call.',
        },
        CatalogToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The Iceberg catalog’s: a user’s API key as the bearer token, as the token endpoint hands it out (OAuth2 client credentials, the key as the client secret).',
        },
        IngestToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The webhook source’s token, shown once when the connection is created or its token regenerated.',
        },
      },
    },
  };
}
