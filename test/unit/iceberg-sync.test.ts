import { describe, expect, it } from 'vitest';
import {
  catchUpIceberg,
  type IcebergCatchUpDeps,
  type MirrorOutcome,
  syncIceberg,
  syncIcebergAfterCommit,
} from '#shared/domain/datasets/iceberg.ts';
import {
  type DataSet,
  type DataSetIceberg,
  icebergAsOf,
  newDataSet,
  shownDataSet,
} from '#shared/domain/datasets/model.ts';
import type { CommittedVersion } from '#shared/domain/datasets/table.ts';
import { StoreFailure } from '#shared/domain/tenants/store-failures.ts';

const t0 = Date.parse('2026-12-01T10:00:00.000Z');
const minute = 60_000;

function table(version: number | null, iceberg: DataSetIceberg | null = null): DataSet {
  return {
    ...newDataSet(
      {
        data_set_id: 'ds-1',
        tenant_id: 'tenant-1',
        tenant_slug: 'acme',
        name: 'orders',
        origin: { type: 'Webhook', connection_id: 'c', source_id: 's' },
        schema_json: { type: 'struct', fields: [] },
      },
      new Date(t0).toISOString(),
    ),
    storage_location: 's3://lake/datasets/ds-1',
    object_store_id: 'store-1',
    version,
    iceberg,
  };
}

const committed = (version: number): CommittedVersion => ({
  version,
  checkpoint: false,
  partitionsToCompact: () => 0,
  oldestDayExpiresAt: () => null,
});

/** In-memory ports: the mirror answers what `outcome` says for the version it is asked for. */
function world(outcome: (dataSet: DataSet) => MirrorOutcome | Error = (dataSet) => current(dataSet.version ?? -1)) {
  const clock = { now: t0 };
  const recorded: DataSetIceberg[] = [];
  const mirrored: (number | null)[] = [];
  /** What each mirror was asked to read: the version its caller just committed (no read), or the log to its end. */
  const asked: string[] = [];
  const due = new Map<string, string>();
  /** Every mark written, as [data set, due at]. */
  const marks: [string, string][] = [];
  const cleared: string[] = [];
  const warnings: Record<string, unknown>[] = [];
  const dataSets = new Map<string, DataSet>();
  const deps: IcebergCatchUpDeps = {
    async mirrorLatest(dataSet, justCommitted) {
      mirrored.push(dataSet.version);
      asked.push(justCommitted === true ? 'the version just committed' : 'the latest');
      const answer = outcome(dataSet);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async recordIceberg(id, iceberg) {
      recorded.push(iceberg);
      const found = dataSets.get(id);
      if (found) dataSets.set(id, { ...found, iceberg });
    },
    async markIcebergDue(dataSet, at) {
      marks.push([dataSet.data_set_id, at.toISOString()]);
      const before = due.get(dataSet.data_set_id);
      if (!before || before > at.toISOString()) due.set(dataSet.data_set_id, at.toISOString());
    },
    failureCategory: (error) => (error instanceof StoreFailure ? error.category : error.name),
    now: () => clock.now,
    warn: (_, fields) => warnings.push(fields),
    async dueIcebergSyncs(now) {
      return [...due].filter(([, at]) => at <= now.toISOString()).map(([dataSetId, dueAt]) => ({ dataSetId, dueAt }));
    },
    async clearIcebergDue(id, at) {
      if (due.get(id) === at) due.delete(id);
      cleared.push(id);
    },
    async getDataSet(id) {
      return dataSets.get(id) ?? null;
    },
    dependencyFailed: (error) => error.name === 'TimeoutError',
  };
  return { deps, clock, recorded, mirrored, asked, due, marks, cleared, warnings, dataSets };
}

const current = (version: number): MirrorOutcome => ({
  status: 'Current',
  deltaVersion: version,
  metadataLocation: `s3://lake/datasets/ds-1/metadata/v${version + 1}.metadata.json`,
  metadata: { 'format-version': 2 },
});

describe('keeping a data set’s Iceberg metadata in step with its Delta commits', () => {
  it('syncs after the first commit, and records where the metadata is', async () => {
    // Prepare
    const w = world();

    // Act
    await syncIcebergAfterCommit(w.deps, table(null), [committed(0)]);

    // Assess: right after the commit, the writer's own state is the end (no read of the log).
    expect(w.mirrored).toEqual([0]);
    expect(w.asked).toEqual(['the version just committed']);
    expect(w.recorded).toEqual([
      {
        metadata_location: 's3://lake/datasets/ds-1/metadata/v1.metadata.json',
        delta_version: 0,
        status: 'Current',
        reason: null,
        synced_at: '2026-12-01T10:00:00.000Z',
      },
    ]);
  });

  it('marks a table due instead of syncing when its last sync is under five minutes old, and syncs after', async () => {
    // Prepare
    const w = world();
    const synced: DataSetIceberg = {
      metadata_location: 's3://lake/datasets/ds-1/metadata/v1.metadata.json',
      delta_version: 0,
      status: 'Current',
      reason: null,
      synced_at: new Date(t0).toISOString(),
    };
    w.clock.now = t0 + 2 * minute;

    // Act
    await syncIcebergAfterCommit(w.deps, table(0, synced), [committed(1)]);
    await syncIcebergAfterCommit(w.deps, table(1, synced), [committed(2)]);
    w.clock.now = t0 + 5 * minute;
    await syncIcebergAfterCommit(w.deps, table(2, synced), [committed(3)]);

    // Assess
    expect(w.due.get('ds-1')).toBe('2026-12-01T10:05:00.000Z');
    // Each commit marks it (a mark as early as one there stays as it is): a table found behind may have no mark at
    // all, put behind by a version recorded without a sync, or by a writer that stopped before its mark.
    expect(w.marks).toEqual([
      ['ds-1', '2026-12-01T10:05:00.000Z'],
      ['ds-1', '2026-12-01T10:05:00.000Z'],
    ]);
    expect(w.mirrored).toEqual([3]);
    expect(w.recorded.map((r) => [r.status, r.delta_version])).toEqual([['Current', 3]]);
  });

  it('never fails the commit: a failed sync is recorded with its category, keeping the last metadata', async () => {
    // Prepare
    const w = world(() => new StoreFailure('ACCESS_DENIED', 'AccessDenied'));
    const before: DataSetIceberg = {
      metadata_location: 's3://lake/datasets/ds-1/metadata/v4.metadata.json',
      delta_version: 3,
      status: 'Current',
      reason: null,
      synced_at: new Date(t0 - 10 * minute).toISOString(),
    };

    // Act
    await syncIcebergAfterCommit(w.deps, table(3, before), [committed(4)]);

    // Assess
    expect(w.recorded).toEqual([
      {
        metadata_location: 's3://lake/datasets/ds-1/metadata/v4.metadata.json',
        delta_version: 3,
        status: 'Failed',
        reason: 'ACCESS_DENIED',
        synced_at: '2026-12-01T10:00:00.000Z',
      },
    ]);
    expect(w.warnings).toEqual([{ data_set_id: 'ds-1', version: 4, reason: 'ACCESS_DENIED' }]);
    // Tried again by the schedule an interval on, though no commit comes to sync it.
    expect(w.marks).toEqual([['ds-1', '2026-12-01T10:05:00.000Z']]);
  });

  it('records why a table Iceberg cannot express is not mirrored', async () => {
    // Prepare
    const w = world((dataSet) => ({
      status: 'Unsupported',
      deltaVersion: dataSet.version ?? -1,
      reason: 'deletion vectors',
    }));

    // Act
    const result = await syncIceberg(w.deps, table(7));

    // Assess
    expect(result?.iceberg).toMatchObject({ status: 'Unsupported', reason: 'deletion vectors', delta_version: null });
    expect(result?.metadata).toBeNull();
  });

  it('has nothing to sync before the first commit', async () => {
    const w = world();
    expect(await syncIceberg(w.deps, table(null))).toBeNull();
    expect(w.mirrored).toEqual([]);
  });

  it('catches up the tables marked due: behind ones synced, current ones only cleared, failed ones kept due', async () => {
    // Prepare
    const w = world((dataSet) =>
      dataSet.data_set_id === 'broken' ? new Error('boom') : current(dataSet.version ?? -1),
    );
    const at = new Date(t0).toISOString();
    const upToDate: DataSetIceberg = {
      metadata_location: 'x',
      delta_version: 9,
      status: 'Current',
      reason: null,
      synced_at: at,
    };
    w.dataSets.set('behind', { ...table(5), data_set_id: 'behind' });
    w.dataSets.set('current', { ...table(9, upToDate), data_set_id: 'current' });
    w.dataSets.set('broken', { ...table(2), data_set_id: 'broken' });
    for (const id of ['behind', 'current', 'broken', 'gone']) w.due.set(id, at);
    w.due.set('later', new Date(t0 + minute).toISOString());

    // Act
    const report = await catchUpIceberg(w.deps, { deadline: t0 + minute, concurrency: 2 });

    // Assess
    expect(report).toEqual({ synced: 1, failed: 1, interrupted: false });
    expect(w.mirrored.sort()).toEqual([2, 5]);
    // A catch-up reads each log to its end: another writer may have committed since.
    expect(w.asked).toEqual(['the latest', 'the latest']);
    expect([...w.due.keys()].sort()).toEqual(['broken', 'later']);
    expect(w.dataSets.get('behind')?.iceberg?.delta_version).toBe(5);
  });

  it('ends a catch-up early, not in a failure, when the platform’s own table is slow: what is still due stays due', async () => {
    const w = world();
    const at = new Date(t0).toISOString();
    for (const id of ['a', 'b']) {
      w.dataSets.set(id, { ...table(5), data_set_id: id });
      w.due.set(id, at);
    }
    const timeout = () => Object.assign(new Error('The operation was aborted'), { name: 'TimeoutError' });
    const slowRead = {
      ...w.deps,
      async getDataSet() {
        throw timeout();
      },
    };
    expect(await catchUpIceberg(slowRead, { deadline: t0 + minute, concurrency: 2 })).toEqual({
      synced: 0,
      failed: 0,
      interrupted: true,
    });
    expect([...w.due.keys()].sort()).toEqual(['a', 'b']);
    const slowList = {
      ...w.deps,
      async dueIcebergSyncs(): Promise<never> {
        throw timeout();
      },
    };
    expect(await catchUpIceberg(slowList, { deadline: t0 + minute, concurrency: 2 })).toMatchObject({
      interrupted: true,
    });
    // Anything else still fails the run.
    const broken = {
      ...w.deps,
      async getDataSet(): Promise<never> {
        throw new Error('A data set item that does not read');
      },
    };
    await expect(catchUpIceberg(broken, { deadline: t0 + minute, concurrency: 1 })).rejects.toThrow('does not read');
  });

  it('shows a table whose metadata mirrors an older version as Behind', () => {
    const iceberg: DataSetIceberg = {
      metadata_location: 'x',
      delta_version: 3,
      status: 'Current',
      reason: null,
      synced_at: new Date(t0).toISOString(),
    };
    expect(icebergAsOf(iceberg, 4)?.status).toBe('Behind');
    expect(icebergAsOf(iceberg, 3)?.status).toBe('Current');
    expect(icebergAsOf({ ...iceberg, status: 'Unsupported' }, 9)?.status).toBe('Unsupported');
    expect(icebergAsOf(null, 9)).toBeNull();
  });

  it('shows a committed table that was never synced as Behind, and one never committed as null', () => {
    const committed = table(0);
    expect(shownDataSet(committed).iceberg).toEqual({
      metadata_location: null,
      delta_version: null,
      status: 'Behind',
      reason: null,
      synced_at: committed.updated_at,
    });
    expect(shownDataSet(table(null)).iceberg).toBeNull();
  });
});
