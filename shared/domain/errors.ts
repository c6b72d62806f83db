/**
 * Domain errors. Every failure the service answers on purpose is a DomainError carrying one of the
 * contract's codes; the HTTP edge maps codes to statuses in one table (shared/http/error-status.ts).
 * Anything else is a bug and becomes a 500 INTERNAL with no internals exposed.
 */

export const errorCodes = [
  'VALIDATION_ERROR',
  'INVALID_FEED',
  'INVALID_JSON',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'SOURCE_PAUSED',
  'CONNECTION_NOT_ACTIVE',
  'OBJECT_STORE_NOT_CONFIGURED',
  'OBJECT_STORE_FAILED',
  'TENANT_SUSPENDED',
  'PIPELINE_DISABLED',
  'PIPELINE_NOT_DEPLOYED',
  'JOB_NOT_CANCELLABLE',
  'TABLE_PROTOCOL_UNSUPPORTED',
  'TABLE_SCHEMA_INCOMPATIBLE',
  'RATE_LIMITED',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'INTERNAL',
  'SERVICE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface ErrorDetail {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] | null = null,
    /** Extra response headers, e.g. Retry-After for RATE_LIMITED. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string, details: ErrorDetail[] = []): DomainError =>
  new DomainError('VALIDATION_ERROR', message, details);

export const notFound = (what: string): DomainError => new DomainError('NOT_FOUND', `${what} not found`);

export const conflict = (message: string): DomainError => new DomainError('CONFLICT', message);

export const forbidden = (message = 'Your role does not allow this operation'): DomainError =>
  new DomainError('FORBIDDEN', message);

export const unauthorized = (
  message = 'Missing or invalid credentials',
  details: ErrorDetail[] | null = null,
): DomainError => new DomainError('UNAUTHORIZED', message, details);

export const tooLarge = (message: string): DomainError => new DomainError('PAYLOAD_TOO_LARGE', message);

/** A valid request that the current state of a resource refuses (422). */
export const refused = (
  code: Extract<
    ErrorCode,
    | 'SOURCE_PAUSED'
    | 'CONNECTION_NOT_ACTIVE'
    | 'OBJECT_STORE_NOT_CONFIGURED'
    | 'TENANT_SUSPENDED'
    | 'PIPELINE_DISABLED'
    | 'PIPELINE_NOT_DEPLOYED'
    | 'JOB_NOT_CANCELLABLE'
  >,
  message: string,
): DomainError => new DomainError(code, message);

export const rateLimited = (retryAfterSeconds: number): DomainError =>
  new DomainError('RATE_LIMITED', 'Rate limit exceeded; retry later', null, {
    'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/** A request whose work could not begin before its time ran out; nothing of it was kept. */
export const notQueuedInTime = (): DomainError =>
  new DomainError('SERVICE_UNAVAILABLE', 'The request could not be queued in time and was not kept; retry it', null, {
    'retry-after': '1',
  });

/** One of the platform's own dependencies slow, throttling or failing past its retries: the service busy for a moment. */
export const serviceBusy = (): DomainError =>
  new DomainError('SERVICE_UNAVAILABLE', 'The service is busy; retry the request', null, { 'retry-after': '1' });

/** A job that could not be put on the queue, and failed: nothing of it runs, and asking again is safe. */
export const jobNotQueued = (): DomainError =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    'The job could not be queued and will not run (it is Failed); retry it',
    null,
    {
      'retry-after': '1',
    },
  );

/**
 * The ingest queue refused a redrive's send: what went back before it stays redriven (and counted), the
 * rest stays failed deliveries, so calling again is safe.
 */
export const redriveNotQueued = (redriven: number): DomainError =>
  new DomainError(
    'SERVICE_UNAVAILABLE',
    `The ingest queue did not take every failed delivery: ${redriven} went back on it, the rest still wait; retry`,
    null,
    { 'retry-after': '1' },
  );
