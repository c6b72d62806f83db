/**
 * What S3 and STS answered, as the stable category a tenant may see (shared/domain/tenants/store-failures.ts):
 * the one place that knows AWS's error codes. Every request to a tenant's store, and every STS call
 * made for one, passes its failure through storeFailureOf.
 */
import { StoreFailure, type StoreFailureCategory } from '../../domain/tenants/store-failures.ts';

/**
 * The S3 (and STS, for stores reached through a role) error codes a tenant may see, by category. A
 * code not listed here is not shown: a server that is not S3 could put anything in it.
 */
const categoryOfCode: Record<string, Exclude<StoreFailureCategory, 'STORE_UNREACHABLE' | 'ENDPOINT_NOT_ALLOWED'>> = {
  AccessDenied: 'ACCESS_DENIED',
  AccountProblem: 'ACCESS_DENIED',
  AllAccessDisabled: 'ACCESS_DENIED',
  InvalidAccessKeyId: 'ACCESS_DENIED',
  SignatureDoesNotMatch: 'ACCESS_DENIED',
  ExpiredToken: 'ACCESS_DENIED',
  ExpiredTokenException: 'ACCESS_DENIED',
  InvalidToken: 'ACCESS_DENIED',
  InvalidClientTokenId: 'ACCESS_DENIED',
  TokenRefreshRequired: 'ACCESS_DENIED',
  NotSignedUp: 'ACCESS_DENIED',
  RegionDisabledException: 'ACCESS_DENIED',
  RequestTimeTooSkewed: 'ACCESS_DENIED',
  NoSuchBucket: 'NO_SUCH_BUCKET',
  NoSuchKey: 'NO_SUCH_KEY',
  InternalError: 'STORE_UNAVAILABLE',
  ServiceUnavailable: 'STORE_UNAVAILABLE',
  SlowDown: 'STORE_UNAVAILABLE',
  RequestTimeout: 'STORE_UNAVAILABLE',
  OperationAborted: 'STORE_UNAVAILABLE',
  AuthorizationHeaderMalformed: 'STORE_REFUSED',
  BadDigest: 'STORE_REFUSED',
  EntityTooLarge: 'STORE_REFUSED',
  IncompleteBody: 'STORE_REFUSED',
  InvalidArgument: 'STORE_REFUSED',
  InvalidBucketName: 'STORE_REFUSED',
  InvalidBucketState: 'STORE_REFUSED',
  InvalidDigest: 'STORE_REFUSED',
  InvalidObjectState: 'STORE_REFUSED',
  InvalidRequest: 'STORE_REFUSED',
  InvalidStorageClass: 'STORE_REFUSED',
  InvalidURI: 'STORE_REFUSED',
  KeyTooLongError: 'STORE_REFUSED',
  MalformedXML: 'STORE_REFUSED',
  MethodNotAllowed: 'STORE_REFUSED',
  MissingContentLength: 'STORE_REFUSED',
  MissingSecurityHeader: 'STORE_REFUSED',
  NotImplemented: 'STORE_REFUSED',
  PermanentRedirect: 'STORE_REFUSED',
  PreconditionFailed: 'STORE_REFUSED',
  QuotaExceeded: 'STORE_REFUSED',
  Redirect: 'STORE_REFUSED',
  TemporaryRedirect: 'STORE_REFUSED',
  XAmzContentSHA256Mismatch: 'STORE_REFUSED',
};

/**
 * The one mapping from whatever a store request threw (an S3 or STS error, a network error, a
 * timeout) to what may be shown: the error's name is the code S3 answered with; anything that is
 * not a documented code (a refused connection, a timeout, a server that is not S3) is unreachable.
 */
export function storeFailureOf(error: unknown): StoreFailure {
  if (error instanceof StoreFailure) return error;
  const code = error instanceof Error && Object.hasOwn(categoryOfCode, error.name) ? error.name : null;
  return code
    ? new StoreFailure(categoryOfCode[code] as StoreFailureCategory, code)
    : new StoreFailure('STORE_UNREACHABLE');
}
