import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ZodError } from 'zod';
import { dependencyFailed } from '../adapters/dependency-failures.ts';
import { DomainError, type ErrorDetail, serviceBusy } from '../domain/errors.ts';
import { logger } from '../observability/logger.ts';
import { statusOfCode } from './error-status.ts';

/** What a route's use case answers; the edge turns it into API Gateway's result shape. */
export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A non-JSON body (text/plain metrics, an HTML page). */
  raw?: { contentType: string; content: string };
}

export const ok = (body: unknown): HttpResult => ({ status: 200, body });
export const created = (body: unknown): HttpResult => ({ status: 201, body });
export const accepted = (body: unknown): HttpResult => ({ status: 202, body });
export const noContent = (): HttpResult => ({ status: 204 });

export function toApiGatewayResult(result: HttpResult, requestId: string): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...result.headers };
  if (result.raw) {
    return {
      statusCode: result.status,
      headers: { ...headers, 'content-type': result.raw.contentType },
      body: result.raw.content,
    };
  }
  if (result.body === undefined || result.status === 204) {
    return { statusCode: result.status, headers, body: '' };
  }
  return {
    statusCode: result.status,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(result.body),
  };
}

export function zodDetails(error: ZodError): ErrorDetail[] {
  return error.issues.flatMap((issue) => {
    const base = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...base, key].join('.'), message: 'Unknown field' }));
    }
    return [{ path: base.join('.'), message: issue.message }];
  });
}

/**
 * A failure as the domain error it is, or says it is. One of the platform's own AWS dependencies
 * slow, throttling or failing past the SDK's retries (DynamoDB, SQS, the platform bucket) is the
 * service busy for a moment: 503 SERVICE_UNAVAILABLE with Retry-After, which callers retry. Anything
 * else is logged and becomes INTERNAL.
 */
export function domainErrorOf(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof ZodError)
    return new DomainError('VALIDATION_ERROR', 'The request is not valid', zodDetails(error));
  if (error instanceof Error && dependencyFailed(error)) {
    logger.warn('A dependency was slow or busy past its retries; answered 503', { error });
    return serviceBusy();
  }
  logger.error('Unhandled error', { error: error as Error });
  return new DomainError('INTERNAL', 'Internal error; the request id identifies it in the logs');
}

/**
 * Every failure becomes the contract's error body. Domain errors say what went wrong; anything
 * else is logged with its stack and answered as a bare 500 that exposes nothing.
 */
export function errorResult(error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  const domainError = domainErrorOf(error);
  const status = statusOfCode[domainError.code];
  return toApiGatewayResult(
    {
      status,
      headers: domainError.headers,
      body: {
        code: domainError.code,
        message: domainError.message,
        details: domainError.details,
        request_id: requestId,
      },
    },
    requestId,
  );
}
