import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { ZodType } from 'zod';
import { DomainError, invalid, tooLarge } from '../domain/errors.ts';
import { zodDetails } from './responses.ts';

/** Management request bodies are small JSON documents; anything bigger is refused before parsing. */
export const maxManagementBodyBytes = 1024 * 1024;

/** The raw request body as bytes, whatever API Gateway's base64 flag says. */
export function rawBody(event: APIGatewayProxyEventV2): Buffer {
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

export function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {};
  const value = headers[name] ?? headers[name.toLowerCase()];
  if (value !== undefined) return value;
  const match = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
  return match === undefined ? undefined : headers[match];
}

function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

export function parseWith<T>(schema: ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(`The ${what} is not valid`, zodDetails(result.error));
  return result.data;
}

/**
 * A management route's JSON body: at most 1 MiB, declared as JSON, well-formed, and valid against the
 * route's schema. A route that takes no body accepts an empty body or `{}` and nothing else.
 */
export function parseJsonBody<T>(event: APIGatewayProxyEventV2, schema: ZodType<T> | undefined): T | undefined {
  const bytes = rawBody(event);
  if (bytes.length > maxManagementBodyBytes) {
    throw tooLarge(`Request bodies are limited to ${maxManagementBodyBytes} bytes`);
  }
  const empty = bytes.toString('utf8').trim() === '';
  if (!empty && !isJsonMediaType(header(event, 'content-type'))) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON (Content-Type: application/json)');
  }
  let value: unknown;
  if (!empty) {
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new DomainError('INVALID_JSON', 'The request body is not well-formed JSON');
    }
  }
  if (!schema) {
    const isEmptyObject =
      value === undefined ||
      (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0);
    if (!isEmptyObject)
      throw invalid('This operation takes no request body', [{ path: '', message: 'Unexpected body' }]);
    return undefined;
  }
  if (value === undefined) throw invalid('A JSON request body is required', [{ path: '', message: 'Required' }]);
  return parseWith(schema, value, 'request body');
}

/** The token of an `Authorization: Bearer …` header (the scheme is case-insensitive, RFC 7235). */
export function bearerToken(event: APIGatewayProxyEventV2): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header(event, 'authorization') ?? '');
  return match?.[1];
}

/**
 * A form-encoded body (application/x-www-form-urlencoded, as OAuth2's token endpoint takes it), at
 * most 1 MiB, valid against the route's schema.
 */
export function parseFormBody<T>(event: APIGatewayProxyEventV2, schema: ZodType<T> | undefined): T | undefined {
  if (!schema) return undefined;
  const bytes = rawBody(event);
  if (bytes.length > maxManagementBodyBytes) {
    throw tooLarge(`Request bodies are limited to ${maxManagementBodyBytes} bytes`);
  }
  const mediaType = header(event, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/x-www-form-urlencoded') {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The body must be a form (application/x-www-form-urlencoded)');
  }
  return parseWith(schema, Object.fromEntries(new URLSearchParams(bytes.toString('utf8'))), 'form');
}

/**
 * The API's public base URL: the deployment's edge (PUBLIC_BASE_URL, set by the stack when the API sits
 * behind CloudFront, which reaches API Gateway under API Gateway's own host name), else as the caller
 * reached it (API Gateway sets x-forwarded-proto).
 */
export function publicBaseUrl(event: APIGatewayProxyEventV2): string {
  if (process.env.PUBLIC_BASE_URL) return process.env.PUBLIC_BASE_URL;
  const host = header(event, 'host') ?? event.requestContext.domainName;
  const protocol =
    header(event, 'x-forwarded-proto') ??
    (host.startsWith('127.0.0.1') || host.startsWith('localhost') ? 'http' : 'https');
  return `${protocol}://${host}`;
}
