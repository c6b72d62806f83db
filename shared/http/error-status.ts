import type { ErrorCode } from '../domain/errors.ts';

/** The one table that turns a domain error code into an HTTP status (contract section 1). */
export const statusOfCode: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  INVALID_FEED: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SOURCE_PAUSED: 422,
  CONNECTION_NOT_ACTIVE: 422,
  OBJECT_STORE_NOT_CONFIGURED: 422,
  // The tenant's own store refused or failed: the tenant's to fix, not a failure of the service.
  OBJECT_STORE_FAILED: 422,
  TENANT_SUSPENDED: 422,
  PIPELINE_DISABLED: 422,
  PIPELINE_NOT_DEPLOYED: 422,
  JOB_NOT_CANCELLABLE: 422,
  TABLE_PROTOCOL_UNSUPPORTED: 422,
  TABLE_SCHEMA_INCOMPATIBLE: 422,
  RATE_LIMITED: 429,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
};
