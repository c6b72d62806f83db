/**
 * A commit's failure as a tenant reads it (a connection's stats, a failed delivery's last_error): never what a remote
 * system said, and never the platform's own account, roles or tables.
 */
import { describe, expect, it } from 'vitest';
import { TableNotWritable } from '#delta/errors.ts';
import { parseCommit } from '#delta/kernel/log.ts';
import { invalid } from '#shared/domain/errors.ts';
import { TableGone } from '#shared/domain/ingest/commit-table.ts';
import { describeFailure, StoreFailure } from '#shared/domain/tenants/store-failures.ts';

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('a commit failure as a tenant reads it', () => {
  it('is a store failure by its category, a refusal by its code, one of Tributary’s own by its words', () => {
    expect(
      [
        new StoreFailure('STORE_UNAVAILABLE', 'SlowDown'),
        invalid('The envelope is not valid'),
        new TableNotWritable('TABLE_PROTOCOL_UNSUPPORTED', 'The table needs deletionVectors', ['deletionVectors']),
        new TableGone('ds-1'),
      ].map(describeFailure),
    ).toEqual([
      'STORE_UNAVAILABLE: The object store is failing or throttling; writes are retried (S3 error code SlowDown)',
      'VALIDATION_ERROR: The envelope is not valid',
      'TABLE_PROTOCOL_UNSUPPORTED: The table needs deletionVectors',
      expect.stringMatching(/^TableGone: /),
    ]);
  });

  it('is anything else by its kind alone: an SDK’s message names the account, a parser’s quotes the store', () => {
    const denied = named(
      'AccessDeniedException',
      'User: arn:aws:sts::123456789012:assumed-role/tributary-commit/x is not authorized to perform dynamodb:Query',
    );
    let served: Error | undefined;
    try {
      parseCommit('10.0.3.7:9000 down');
    } catch (error) {
      served = error as Error;
    }
    if (!served) throw new Error('a commit line that is not JSON was read');
    const texts = [denied, served, named('ThrottlingException', 'Rate exceeded for table tributary')].map(
      describeFailure,
    );
    expect(texts).toEqual([
      'INTERNAL: the commit failed (AccessDeniedException)',
      'INTERNAL: the commit failed (SyntaxError)',
      'INTERNAL: the commit failed (ThrottlingException)',
    ]);
    // The store's text is not even in the parser's own message.
    expect(served.message).not.toContain('10.0.3.7');
  });
});
