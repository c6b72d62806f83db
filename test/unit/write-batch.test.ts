/**
 * writeEnvelopeBatch, the batch writer's use case, through in-memory ports: a Delta log and object
 * store in Maps, and an encoder that writes each file as JSON lines, so that the test reads back
 * what the log references on its own. The running service checks the wiring (Parquet, S3, SQS).
 */
import { describe, expect, it } from 'vitest';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import { envelopeSchema } from '#shared/domain/datasets/model.ts';
import type { Envelope } from '#shared/domain/ingest/envelope.ts';
import { type BatchWriterDeps, type PendingEnvelope, writeEnvelopeBatch } from '#shared/domain/ingest/write-batch.ts';
import { type MemoryTable, memoryTable } from '../support/memory-table.ts';

function dataSet(id: string, storeLocation: string | null): DataSet {
  return {
    data_set_id: id,
    tenant_id: 't1',
    tenant_slug: 'acme',
    object_store_id: storeLocation ? 'store-1' : null,
    name: id,
    data_set_type: 'Delta',
    storage_tier: 'Tributary',
    storage_location: storeLocation,
    status: storeLocation ? 'Active' : 'Pending',
    origin: { type: 'Webhook', connection_id: `c-${id}`, source_id: `s-${id}` },
    partitioning: { columns: ['dt'], granularity: 'day' },
    schema_json: envelopeSchema,
    version: null,
    created_at: '2026-11-21T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
  };
}

/** Tables by location (test/support/memory-table.ts); a location in `failing` refuses every write. */
function memoryTables(failing = new Set<string>()) {
  const tables = new Map<string, MemoryTable>();
  const tableAt = (location: string) => {
    let table = tables.get(location);
    if (!table) {
      table = memoryTable({ jitter: false });
      tables.set(location, table);
    }
    const { log, storage } = table;
    return {
      log,
      storage: {
        ...storage,
        async put(key: string, body: Uint8Array | string, contentType: string) {
          if (failing.has(location)) throw Object.assign(new Error('Injected fault'), { name: 'ServiceUnavailable' });
          return storage.put(key, body, contentType);
        },
      },
    };
  };

  /** The message ids the table holds, read from the files its committed log references. */
  function rowsOf(location: string): string[] {
    const table = tables.get(location);
    if (!table) return [];
    const commits = [...table.objects.keys()].filter((key) => /^_delta_log\/\d{20}\.json$/.test(key)).sort();
    return commits.flatMap((key) =>
      String(table.objects.get(key)?.bytes)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .filter((action) => action.add)
        .flatMap((action) =>
          String(table.objects.get(action.add.path)?.bytes)
            .trim()
            .split('\n')
            .map((line) => (JSON.parse(line) as { message_id: string }).message_id),
        ),
    );
  }
  return { tables, tableAt, rowsOf };
}

function world(options: { failing?: string[]; dataSets?: DataSet[] } = {}) {
  const stored = new Map(
    (options.dataSets ?? [dataSet('ds-a', 's3://lake/datasets/ds-a')]).map((d) => [d.data_set_id, d]),
  );
  const tables = memoryTables(new Set(options.failing));
  const committed: { dataSetId: string; version: number; rows: number }[] = [];
  const deps: BatchWriterDeps = {
    getDataSet: async (id) => stored.get(id) ?? null,
    async fixStorage(found) {
      if (found.storage_location) return found;
      const fixed = {
        ...found,
        object_store_id: 'store-1',
        storage_location: `s3://lake/datasets/${found.data_set_id}`,
      };
      stored.set(found.data_set_id, fixed);
      return fixed;
    },
    tableAt: async (found) => tables.tableAt(found.storage_location as string),
    async onCommitted(found, entry) {
      committed.push({ dataSetId: found.data_set_id, version: entry.version, rows: entry.rows });
    },
    encode(rows: Envelope[]) {
      return {
        bytes: Buffer.from(rows.map((row) => JSON.stringify({ message_id: row.message_id, dt: row.dt })).join('\n')),
        stats: { numRecords: rows.length, minValues: {}, maxValues: {}, nullCount: {} },
      };
    },
    maxRowsPerFile: 3,
  };
  return { deps, tables, committed, stored };
}

let recordNumber = 0;
function pending(
  dataSetId: string,
  messageId: string,
  options: { dt?: string; receiveCount?: number } = {},
): PendingEnvelope {
  return {
    recordId: `record-${recordNumber++}`,
    receiveCount: options.receiveCount ?? 1,
    envelope: {
      message_id: messageId,
      data_set_id: dataSetId,
      dt: options.dt ?? '2026-11-21',
      ingested_at_us: 1_795_000_000_000_000n,
      source_id: `s-${dataSetId}`,
      tenant_id: 't1',
      content_type: null,
      payload_size: 2,
      payload: 'e30=',
    },
  };
}

describe.concurrent('writeEnvelopeBatch', () => {
  it('commits each data set once, one file per day and at most maxRowsPerFile rows, every row once', async () => {
    const { deps, tables, committed } = world();
    const batch = [
      ...['m1', 'm2', 'm3', 'm4'].map((id) => pending('ds-a', id)),
      pending('ds-a', 'm5', { dt: '2026-11-20' }),
    ];
    const outcome = await writeEnvelopeBatch(deps, batch);
    expect(outcome).toEqual({ failedRecordIds: [], written: 5, skipped: 0, committedDataSets: ['ds-a'], failures: [] });
    expect(tables.rowsOf('s3://lake/datasets/ds-a').sort()).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    const files = [...(tables.tables.get('s3://lake/datasets/ds-a')?.objects.keys() ?? [])].filter((key) =>
      key.startsWith('dt='),
    );
    expect(files.map((key) => key.slice(0, 14)).sort()).toEqual(['dt=2026-11-20/', 'dt=2026-11-21/', 'dt=2026-11-21/']);
    expect(committed).toEqual([{ dataSetId: 'ds-a', version: 0, rows: 5 }]);
  });

  it('acknowledges redeliveries and in-batch duplicates without writing a row twice', async () => {
    const { deps, tables } = world();
    await writeEnvelopeBatch(deps, [pending('ds-a', 'm1'), pending('ds-a', 'm2')]);
    const again = [pending('ds-a', 'm1', { receiveCount: 2 }), pending('ds-a', 'm3'), pending('ds-a', 'm3')];
    const outcome = await writeEnvelopeBatch(deps, again);
    expect(outcome).toMatchObject({ failedRecordIds: [], written: 1, skipped: 2 });
    expect(tables.rowsOf('s3://lake/datasets/ds-a').sort()).toEqual(['m1', 'm2', 'm3']);
    const onlyRedelivered = await writeEnvelopeBatch(deps, [pending('ds-a', 'm2', { receiveCount: 3 })]);
    expect(onlyRedelivered).toMatchObject({ failedRecordIds: [], written: 0, skipped: 1 });
    const commits = [...(tables.tables.get('s3://lake/datasets/ds-a')?.objects.keys() ?? [])].filter((key) =>
      /^_delta_log\/\d{20}\.json$/.test(key),
    );
    expect(commits.length, 'no commit for a batch of redeliveries only').toBe(2);
  });

  it('lets one tenant’s failing store fail only its own records, naming the store', async () => {
    const { deps, tables, committed } = world({
      failing: ['s3://broken/datasets/ds-b'],
      dataSets: [dataSet('ds-a', 's3://lake/datasets/ds-a'), dataSet('ds-b', 's3://broken/datasets/ds-b')],
    });
    const good = pending('ds-a', 'm1');
    const bad = [pending('ds-b', 'm2', { receiveCount: 4 }), pending('ds-b', 'm3')];
    const outcome = await writeEnvelopeBatch(deps, [good, ...bad]);
    expect(outcome.failedRecordIds.sort()).toEqual(bad.map((item) => item.recordId).sort());
    expect(outcome.committedDataSets).toEqual(['ds-a']);
    expect(
      outcome.failures.map((failure) => ({
        dataSetId: failure.dataSetId,
        location: failure.location,
        error: `${failure.error.name}: ${failure.error.message}`,
        envelopes: failure.envelopes.map((item) => item.envelope.message_id),
      })),
    ).toEqual([
      {
        dataSetId: 'ds-b',
        location: 's3://broken/datasets/ds-b',
        error: 'ServiceUnavailable: Injected fault',
        envelopes: ['m2', 'm3'],
      },
    ]);
    expect(tables.rowsOf('s3://lake/datasets/ds-a')).toEqual(['m1']);
    expect(tables.rowsOf('s3://broken/datasets/ds-b')).toEqual([]);
    expect(committed.map((commit) => commit.dataSetId)).toEqual(['ds-a']);
  });

  it('fixes a new data set’s storage at its first write, and records the highest receive count as the attempt', async () => {
    const { deps, tables, stored } = world({ dataSets: [dataSet('ds-new', null)] });
    await writeEnvelopeBatch(deps, [
      pending('ds-new', 'm1', { receiveCount: 2 }),
      pending('ds-new', 'm2', { receiveCount: 5 }),
    ]);
    expect(stored.get('ds-new')?.storage_location).toBe('s3://lake/datasets/ds-new');
    expect(tables.rowsOf('s3://lake/datasets/ds-new').sort()).toEqual(['m1', 'm2']);
    expect(tables.tables.get('s3://lake/datasets/ds-new')?.entries.get(0)?.attempt).toBe(5);
  });

  it('fails the records of a data set that does not exist, without a location', async () => {
    const { deps } = world();
    const orphan = pending('ds-gone', 'm1');
    const outcome = await writeEnvelopeBatch(deps, [orphan]);
    expect(outcome.failedRecordIds).toEqual([orphan.recordId]);
    expect(outcome.failures.map((failure) => [failure.location, failure.error.message])).toEqual([
      [null, 'Data set ds-gone does not exist'],
    ]);
  });
});
