/**
 * Every failure the library throws on purpose, in one place. Each is a DeltaError with a `code` of
 * its own, so that an application maps them to its own errors at its edge, by code, without knowing
 * the library's classes one by one; anything else thrown from the library is a bug or a storage
 * failure passed on as it came.
 */

export type DeltaErrorCode =
  | 'TABLE_PROTOCOL_UNSUPPORTED'
  | 'TABLE_SCHEMA_INCOMPATIBLE'
  | 'COMMIT_NOT_ALLOWED'
  | 'PROGRESS_MOVED'
  | 'VERSION_NOT_FOUND'
  | 'VERSION_MISSING'
  | 'CONDITIONAL_WRITES_UNSUPPORTED'
  | 'INVALID_DELETION_VECTOR';

export class DeltaError extends Error {
  constructor(
    readonly code: DeltaErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DeltaError';
  }
}

/**
 * The table's protocol needs a feature the library does not implement, or (for an append) the table
 * no longer takes rows of the schema they were written in. Nothing was written.
 */
export class TableNotWritable extends DeltaError {
  declare readonly code: 'TABLE_PROTOCOL_UNSUPPORTED' | 'TABLE_SCHEMA_INCOMPATIBLE';

  constructor(
    code: 'TABLE_PROTOCOL_UNSUPPORTED' | 'TABLE_SCHEMA_INCOMPATIBLE',
    message: string,
    /** The features in the way (empty when only the schema is). */
    readonly unsupported: string[] = [],
  ) {
    super(code, message);
    this.name = 'TableNotWritable';
  }
}

/** A commit that would break a feature the table has turned on. */
export class CommitNotAllowed extends DeltaError {
  constructor(
    readonly feature: string,
    message: string,
  ) {
    super('COMMIT_NOT_ALLOWED', message);
    this.name = 'CommitNotAllowed';
  }
}

/** Another commit moved the application's progress that a replacement was made for. */
export class ProgressMoved extends DeltaError {
  constructor(appId: string, expected: number, found: number) {
    super(
      'PROGRESS_MOVED',
      `Another run of ${appId} committed while this one was being made (its progress moved from version ${expected} to ${found})`,
    );
    this.name = 'ProgressMoved';
  }
}

/** A version asked for that the log no longer (or never) had. */
export class VersionNotFound extends DeltaError {
  constructor(version: number) {
    super(
      'VERSION_NOT_FOUND',
      `Version ${version} of the table is not in its log (it may be older than the log's retention)`,
    );
    this.name = 'VersionNotFound';
  }
}

/** Why a version could not be read back after it was found taken. */
export class MissingVersion extends DeltaError {
  constructor(version: number) {
    super('VERSION_MISSING', `Version ${version} of the table is claimed but not in its log`);
    this.name = 'MissingVersion';
  }
}

/** The store answered that it does not support conditional writes (or ignores them: found by a probe). */
export class ConditionalWritesUnsupported extends DeltaError {
  constructor() {
    super('CONDITIONAL_WRITES_UNSUPPORTED', 'The object store does not support conditional writes (If-None-Match)');
    this.name = 'ConditionalWritesUnsupported';
  }
}

export class InvalidDeletionVector extends DeltaError {
  constructor(message: string) {
    super('INVALID_DELETION_VECTOR', `Deletion vector: ${message}`);
    this.name = 'InvalidDeletionVector';
  }
}
