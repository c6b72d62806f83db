/**
 * The Delta commit coordinator against DynamoDB Local: a version goes to one claim only, and a claim
 * repeated as the SDK repeats a put whose answer was lost is still that claim's win.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '#shared/domain/delta/commit.ts';
import { useServiceEnvironment } from '../support/service-env.ts';

let deltaLog: typeof import('#shared/adapters/dynamo/delta-log.ts').deltaLog;
beforeAll(async () => {
  useServiceEnvironment();
  ({ deltaLog } = await import('#shared/adapters/dynamo/delta-log.ts'));
});

function claim(version: number, runId: string): LogEntry {
  return {
    version,
    runId,
    tempKey: `_delta_log/.tmp/${version}.${runId}`,
    complete: false,
    claimedAt: Date.now(),
    operation: 'WRITE',
    rows: 1,
    bytes: 10,
    files: 1,
    removes: 0,
    txn: null,
    startedAt: new Date().toISOString(),
    completedAt: null,
    attempt: 1,
  };
}

describe('the commit coordinator', () => {
  it('gives a version to one claim, and the same claim sent again still holds it', async () => {
    const tableId = randomUUID();
    const mine = claim(0, 'run-a');
    expect(await deltaLog.claimVersion(tableId, mine)).toBe(true);
    // The put repeated (a retry after a lost answer): the version is this claim's.
    expect(await deltaLog.claimVersion(tableId, mine)).toBe(true);
    // Another writer's claim of the same version loses.
    expect(await deltaLog.claimVersion(tableId, claim(0, 'run-b'))).toBe(false);
    expect((await deltaLog.latestEntry(tableId))?.runId).toBe('run-a');
  });
});
