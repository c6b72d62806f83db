/**
 * What a tenant sees of a failure of its object store: a stable category and, when the store answered
 * with one S3 documents, the S3 error code. Never the store's own message text, its address or any
 * option value: a store's endpoint may be anything the deployment allows, and whatever answers there
 * must not be able to speak to the tenant (or map the platform's network) through Tributary.
 * The store adapter turns every failure into a StoreFailure (storeFailureOf), so failed deliveries,
 * job errors, logs and HTTP answers all show the same thing.
 */
import { DomainError } from '../errors.ts';

const descriptions = {
  STORE_UNREACHABLE: 'The object store could not be reached, or did not answer as an S3 store does',
  ACCESS_DENIED: 'The object store refused the credentials or the access',
  NO_SUCH_BUCKET: 'The bucket does not exist',
  NO_SUCH_KEY: 'An object the table needs is missing from the store',
  STORE_UNAVAILABLE: 'The object store is failing or throttling; writes are retried',
  STORE_REFUSED: 'The object store refused the request',
  ENDPOINT_NOT_ALLOWED: 'This deployment does not accept the store’s endpoint',
} as const;

export type StoreFailureCategory = keyof typeof descriptions;
export const storeFailureCategories = Object.keys(descriptions) as StoreFailureCategory[];

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

export class StoreFailure extends DomainError {
  constructor(
    readonly category: StoreFailureCategory,
    /** The S3 error code the store answered with, when S3 documents it. */
    readonly s3Code: string | null = null,
  ) {
    super(
      'OBJECT_STORE_FAILED',
      `${category}: ${descriptions[category]}${s3Code ? ` (S3 error code ${s3Code})` : ''}`,
      [
        { path: 'object_store.category', message: category },
        ...(s3Code ? [{ path: 'object_store.s3_error_code', message: s3Code }] : []),
      ],
    );
    this.name = 'StoreFailure';
  }
}

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

/**
 * A failure as a tenant may read it (a failed delivery's last error, a job's error): a store failure
 * by its category, a refusal by its code (TABLE_PROTOCOL_UNSUPPORTED: …).
 */
export function describeFailure(error: Error): string {
  if (error instanceof StoreFailure) return error.message;
  return error instanceof DomainError ? `${error.code}: ${error.message}` : `${error.name}: ${error.message}`;
}

/** A short label for metrics: the store failure's category, a refusal's code, or the error's name. */
export function failureReason(error: Error): string {
  if (error instanceof StoreFailure) return error.category;
  return error instanceof DomainError ? error.code : error.name;
}
