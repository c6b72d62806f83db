/**
 * What Tributary keeps in DynamoDB about its Delta commits, against DynamoDB Local: a version goes to
 * one claim only (stores without conditional writes), a claim repeated as the SDK repeats a put
 * whose answer was lost is still that claim's win, and the ids a run holds are found by run and,
 * for the dead-letter recorder, through the run history since a time.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useServiceEnvironment } from '../support/service-env.ts';

let adapter: typeof import('#shared/adapters/dynamo/delta-log.ts');
beforeAll(async () => {
  useServiceEnvironment();
  adapter = await import('#shared/adapters/dynamo/delta-log.ts');
});

describe('version claims', () => {
  it('give a version to one claim, and the same claim sent again still holds it', async () => {
    const tableId = randomUUID();
    const mine = { version: 0, runId: 'run-a', tempKey: '_delta_log/.tmp/0.a', complete: false };
    expect(await adapter.versionClaims.claim(tableId, mine)).toBe(true);
    // The put repeated (a retry after a lost answer): the version is this claim's.
    expect(await adapter.versionClaims.claim(tableId, mine)).toBe(true);
    // Another writer's claim of the same version loses.
    expect(
      await adapter.versionClaims.claim(tableId, { ...mine, runId: 'run-b', tempKey: '_delta_log/.tmp/0.b' }),
    ).toBe(false);
    await adapter.versionClaims.markComplete(tableId, 0);
    expect(await adapter.versionClaims.latest(tableId)).toEqual({ ...mine, complete: true });
  });
});

describe('commit records', () => {
  it('keep the ids each run holds, and the dead-letter check finds them through the run history', async () => {
    const tableId = randomUUID();
    const ids = [randomUUID(), randomUUID(), 'not-a-uuid'];
    const runId = randomUUID();
    await adapter.commitRecords.holdIds(tableId, runId, ids.slice(0, 1));
    // An attempt after a lost race holds other rows: the record is replaced.
    await adapter.commitRecords.holdIds(tableId, runId, ids);
    const found = await adapter.commitRecords.idsOf(tableId, [runId, randomUUID()]);
    expect([...found.keys()]).toEqual([runId]);
    expect(found.get(runId)?.sort()).toEqual([...ids].sort());

    const committedAt = Date.now();
    await adapter.commitRecords.record(tableId, {
      version: 0,
      runId,
      claimedAt: committedAt,
      operation: 'WRITE',
      rows: 3,
      bytes: 10,
      files: 1,
      removes: 0,
      txn: null,
      startedAt: new Date(committedAt).toISOString(),
      completedAt: new Date(committedAt).toISOString(),
      attempt: 1,
    });
    const asked = [ids[0] as string, randomUUID()];
    expect([...(await adapter.writtenSince(tableId, asked, committedAt - 1000))]).toEqual([ids[0]]);
    expect([...(await adapter.writtenSince(tableId, asked, committedAt + 1000))]).toEqual([]);
  });
});

/** An item's size as DynamoDB counts it: each attribute's name and value (binary and strings by their bytes, a number at most 21). */
function itemBytes(item: Record<string, unknown>): number {
  const valueBytes = (value: unknown): number => {
    if (value instanceof Uint8Array) return value.byteLength;
    if (typeof value === 'string') return Buffer.byteLength(value);
    if (typeof value === 'number') return 21;
    if (Array.isArray(value)) return 3 + value.reduce((sum: number, each) => sum + 1 + valueBytes(each), 0);
    return 1;
  };
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

describe('the ids of a large commit', () => {
  it('are kept in items of at most 64 KB, and a hold of fewer rows after a lost race replaces them', async () => {
    const tableId = randomUUID();
    const runId = randomUUID();
    const ids = Array.from({ length: 30_000 }, () => randomUUID());
    await adapter.commitRecords.holdIds(tableId, runId, [...ids, 'a-dedup-key']);
    const { db, table } = await import('#shared/adapters/dynamo/table.ts');
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const stored = async () =>
      (
        await db.send(
          new QueryCommand({
            TableName: table(),
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `DELTA#${tableId}` },
            ConsistentRead: true,
          }),
        )
      ).Items ?? [];
    const items = await stored();
    expect(items.length).toBe(10);
    expect(Math.max(...items.map(itemBytes))).toBeLessThanOrEqual(64 * 1024);
    // Read back from the items (as a process that remembers nothing does): every id once.
    const found = adapter.idsOfRunItems(runId, items);
    expect(found.length).toBe(30_001);
    expect(new Set(found)).toEqual(new Set([...ids, 'a-dedup-key']));

    // The run lost a race and holds only the rows the winner did not: the earlier chunks no longer count.
    await adapter.commitRecords.holdIds(tableId, runId, ids.slice(0, 5));
    expect(adapter.idsOfRunItems(runId, await stored()).sort()).toEqual(ids.slice(0, 5).sort());
  });

  it('are read from an item written before ids were kept in chunks', () => {
    const ids = [randomUUID(), randomUUID(), 'x-key'];
    const { packed, other } = adapter.packMessageIds(ids);
    expect(adapter.idsOfRunItems('run', [{ sk: 'R#run', ids: packed, other_ids: other }]).sort()).toEqual(
      [...ids].sort(),
    );
  });
});
