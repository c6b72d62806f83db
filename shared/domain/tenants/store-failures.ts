/**
 * What a tenant sees of a failure of its object store: a stable category and, when the store answered
 * with one S3 documents, the S3 error code. Never the store's own message text, its address or any
 * option value: a store's endpoint may be anything the deployment allows, and whatever answers there
 * must not be able to speak to the tenant (or map the platform's network) through Tributary.
 * The store adapters turn every failure into a StoreFailure (shared/adapters/s3/store-failure-codes.ts
 * maps what S3 and STS answered to a category), so failed deliveries, job errors, logs and HTTP
 * answers all show the same thing.
 */
import { DeltaError } from '#delta/errors.ts';
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

/** Tributary's own failures of a commit, whose messages say what happened in its words (its ids and keys). */
const ownFailures = new Set(['TableGone', 'PayloadMissing', 'CommitTimedOut', 'StagedObjectGone']);

/**
 * A failure as a tenant may read it (a failed delivery's last error, a commit's in the connection's stats): a store
 * failure by its category, a refusal by its code (TABLE_PROTOCOL_UNSUPPORTED: …), one of Tributary's own by its
 * message. Anything else by its kind alone: an SDK error of the platform's own DynamoDB or S3 names its account,
 * roles and tables, and a parser's quotes what a store served.
 */
export function describeFailure(error: Error): string {
  if (error instanceof StoreFailure) return error.message;
  if (error instanceof DomainError || error instanceof DeltaError) return `${error.code}: ${error.message}`;
  if (ownFailures.has(error.name)) return `${error.name}: ${error.message}`;
  return `INTERNAL: the commit failed (${error.name})`;
}

/** A short label for metrics: the store failure's category, a refusal's code, or the error's name. */
export function failureReason(error: Error): string {
  if (error instanceof StoreFailure) return error.category;
  return error instanceof DomainError ? error.code : error.name;
}
