/**
 * The shared counters against DynamoDB Local: totals written as "the larger value", read as the sum
 * of a series' items, and settled epochs folded without changing a figure or letting a late write
 * count twice.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TotalWrite } from '#shared/domain/observability/tally.ts';
import { useServiceEnvironment } from '../support/service-env.ts';

let counters: typeof import('#shared/adapters/dynamo/counters.ts');
beforeAll(async () => {
  useServiceEnvironment();
  counters = await import('#shared/adapters/dynamo/counters.ts');
});

const epochAt = (ms: number, process: string) => `${Math.floor(ms / 1000).toString(36)}.${process}`;

function total(sourceId: string, epoch: string, value: number, lastAt = new Date().toISOString()): TotalWrite {
  return {
    metric: 'ingestRequests',
    labels: { source_id: sourceId, status: '202', code: 'ACCEPTED' },
    epoch,
    value,
    lastAt,
    added: 0,
  };
}

async function accepted(sourceId: string) {
  const series = await counters.readSourceCounters(sourceId);
  return series.filter((s) => s.metric === 'ingestRequests').map((s) => s.value);
}

describe('shared counters', () => {
  it('keep the larger of two totals of an epoch, whatever order they arrive in, and add up epochs', async () => {
    const source = randomUUID();
    const now = Date.now();
    const epoch = epochAt(now, 'a');
    expect(await counters.writeTotals([total(source, epoch, 5)], now)).toEqual([]);
    await counters.writeTotals([total(source, epoch, 3)], now);
    expect(await accepted(source)).toEqual([5]);
    await counters.writeTotals([total(source, epoch, 7), total(source, epochAt(now, 'b'), 2)], now);
    expect(await accepted(source)).toEqual([9]);
  });

  it('subtract a gauge’s decrements, kept as a series of their own', async () => {
    const status = `Test-${randomUUID()}`;
    const now = Date.now();
    const epoch = epochAt(now, 'g');
    await counters.writeTotals(
      [
        { metric: 'jobs', labels: { status }, epoch, value: 4, lastAt: '', added: 0 },
        { metric: 'jobs', labels: { status, change: 'down' }, epoch, value: 3, lastAt: '', added: 0 },
      ],
      now,
    );
    const jobs = await counters.readCounter('jobs');
    expect(jobs.filter((sample) => sample.labels.status === status)).toEqual([{ labels: { status }, value: 1 }]);
  });

  it('fold epochs settled over an hour ago into one item, and a late write to one counts nothing', async () => {
    const source = randomUUID();
    const now = Date.now();
    const settled = [epochAt(now - 2 * 3600_000, 'x'), epochAt(now - 90 * 60_000, 'y')];
    const current = epochAt(now, 'z');
    await counters.writeTotals(
      [
        total(source, settled[0] as string, 10, '2026-01-01T00:00:00.000Z'),
        total(source, settled[1] as string, 20, '2026-01-01T00:30:00.000Z'),
        total(source, current, 1),
      ],
      // Written while those epochs were young.
      now - 2 * 3600_000,
    );
    expect(await accepted(source)).toEqual([31]);

    // The running service's own upkeep schedule may fold them first: what counts is the items left.
    await counters.foldSettledEpochs(now);
    expect(await accepted(source)).toEqual([31]);
    const { db, table } = await import('#shared/adapters/dynamo/table.ts');
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const items = await db.send(
      new QueryCommand({
        TableName: table(),
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': counters.counterKeys.bySource(source) },
      }),
    );
    // The folded item and the current epoch's.
    expect((items.Items ?? []).map((item) => String(item.sk).split('#').pop()).sort()).toEqual(
      ['folded', current].sort(),
    );

    // A total for a folded epoch arriving now (a retry, a late writer) finds no item to raise.
    await counters.writeTotals([total(source, settled[0] as string, 12)], now);
    expect(await accepted(source)).toEqual([31]);
    // The current epoch still moves.
    await counters.writeTotals([total(source, current, 4)], now);
    expect(await accepted(source)).toEqual([34]);
  });
});
