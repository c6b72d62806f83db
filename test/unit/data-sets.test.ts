/**
 * The data set use cases, in process through in-memory ports (test/support/memory.ts). The running
 * service checks the wiring of the same routes.
 */
import { describe, expect, it } from 'vitest';
import { type Action, type AddFile, metadataAction } from '#delta/kernel/log.ts';
import { deleteConnection } from '#shared/domain/connections/use-cases.ts';
import { readTableProperties, setTableProperties } from '#shared/domain/datasets/table-properties.ts';
import { tablePropertyRules } from '#shared/domain/datasets/table-settings.ts';
import { deleteDataSet, listDataSetFiles, listDataSets } from '#shared/domain/datasets/use-cases.ts';
import {
  deletePayload,
  holdTableWaiting,
  optimizePayload,
  scheduleOptimize,
} from '#shared/domain/jobs/maintenance-jobs.ts';
import type { Job } from '#shared/domain/jobs/model.ts';
import { runDelete } from '#shared/domain/jobs/run-delete.ts';
import { JobCancelled, JobFailure, readJob } from '#shared/domain/jobs/run-job.ts';
import { type OptimizeDeps, runOptimize } from '#shared/domain/jobs/run-optimize.ts';
import { platformAdmin, tenantPrincipal } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';
import { withDataSet } from '../support/use-case-setups.ts';

/** A committed version adding these files (what its `_delta_log/<version>.json` holds). */
function commit(version: number, files: { path: string; records: number }[]): { version: number; actions: Action[] } {
  return {
    version,
    actions: files.map((file) => ({
      add: {
        path: file.path,
        partitionValues: { dt: file.path.slice(3, 13) },
        size: 100 * file.records,
        modificationTime: 0,
        dataChange: true,
        stats: `{"numRecords":${file.records},"minValues":{},"maxValues":{},"nullCount":{}}`,
      },
    })),
  };
}

describe.concurrent('data sets', () => {
  it('list the files of the latest snapshot, newest first, with its version and a download URL each', async () => {
    const { store, dataSetId } = await withDataSet();
    const deps = { ...store, cursors: store.cursorsOf(`files|${dataSetId}`) };
    expect(await listDataSetFiles(deps, platformAdmin, dataSetId)).toEqual({
      version: null,
      files: [],
      next_cursor: null,
    });
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, {
      ...dataSet,
      object_store_id: 'store-1',
      storage_location: 's3://lake/datasets/x',
      version: 1,
    });
    const deleted = commit(1, [{ path: 'dt=2026-11-21/b.parquet', records: 5 }]);
    // Another engine deleted 3 of b's 5 rows with a deletion vector (a remove and an add of the file with it).
    deleted.actions = [
      { remove: { ...(deleted.actions[0] as { add: AddFile }).add, deletionTimestamp: 1, extendedFileMetadata: true } },
      {
        add: {
          ...(deleted.actions[0] as { add: AddFile }).add,
          size: 200,
          deletionVector: { storageType: 'i', pathOrInlineDv: 'x', offset: null, sizeInBytes: 1, cardinality: 3 },
        },
      },
    ];
    store.state.logs.set(dataSetId, [
      commit(0, [
        { path: 'dt=2026-11-20/a.parquet', records: 3 },
        { path: 'dt=2026-11-21/b.parquet', records: 5 },
      ]),
      deleted,
    ]);
    expect(await listDataSetFiles(deps, platformAdmin, dataSetId)).toEqual({
      version: 1,
      files: [
        {
          path: 'dt=2026-11-21/b.parquet',
          partition_values: { dt: '2026-11-21' },
          size: 200,
          num_records: 2,
          url: `https://store.example/${dataSetId}/dt=2026-11-21/b.parquet?expires=900`,
        },
        {
          path: 'dt=2026-11-20/a.parquet',
          partition_values: { dt: '2026-11-20' },
          size: 300,
          num_records: 3,
          url: `https://store.example/${dataSetId}/dt=2026-11-20/a.parquet?expires=900`,
        },
      ],
      next_cursor: null,
    });
  });

  it('list a table of thousands of files a page at a time, each page of one snapshot, whatever commits meanwhile', async () => {
    // Prepare: 2,500 live files (each its own commit, newer ones later), about what makes an answer of 6 MB.
    const { store, dataSetId } = await withDataSet();
    const deps = { ...store, cursors: store.cursorsOf(`files|${dataSetId}`) };
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, {
      ...dataSet,
      object_store_id: 'store-1',
      storage_location: 's3://lake/datasets/x',
      version: 2499,
    });
    const name = (i: number) => `dt=2026-11-21/${String(i).padStart(4, '0')}.parquet`;
    store.state.logs.set(
      dataSetId,
      Array.from({ length: 2500 }, (_, i) => {
        const one = commit(i, [{ path: name(i), records: 1 }]);
        for (const action of one.actions) if ('add' in action && action.add) action.add.modificationTime = i;
        return one;
      }),
    );
    // Act: the first page; then a compaction commits (version 2500 removes every file, adds one); then the rest.
    const first = await listDataSetFiles(deps, platformAdmin, dataSetId, { limit: 1000 });
    store.state.logs.get(dataSetId)?.push({
      version: 2500,
      actions: [
        ...Array.from({ length: 2500 }, (_, i) => ({
          remove: { path: name(i), deletionTimestamp: 1, dataChange: false },
        })),
        ...commit(2500, [{ path: 'dt=2026-11-21/compacted.parquet', records: 2500 }]).actions,
      ],
    } as { version: number; actions: Action[] });
    const pages = [first];
    for (let next = first.next_cursor; next; ) {
      const page = await listDataSetFiles(deps, platformAdmin, dataSetId, { limit: 1000, cursor: next });
      pages.push(page);
      next = page.next_cursor;
    }
    // Assess: 1,000 + 1,000 + 500, newest first, every file once, all of version 2499.
    expect(pages.map((page) => [page.version, page.files.length])).toEqual([
      [2499, 1000],
      [2499, 1000],
      [2499, 500],
    ]);
    const paths = pages.flatMap((page) => page.files.map((file) => file.path));
    expect(paths).toEqual(Array.from({ length: 2500 }, (_, i) => name(2499 - i)));
    // A new listing sees the compaction.
    expect((await listDataSetFiles(deps, platformAdmin, dataSetId)).files.map((file) => file.path)).toEqual([
      'dt=2026-11-21/compacted.parquet',
    ]);
  });

  it('refuse a cursor this list did not issue with 400, another data set’s included', async () => {
    const { store, dataSetId } = await withDataSet();
    const other = await withDataSet();
    const foreign = await store
      .cursorsOf(`files|${other.dataSetId}`)
      .seal({ version: 1, after: { time: 0, path: 'x' } });
    const deps = { ...store, cursors: store.cursorsOf(`files|${dataSetId}`) };
    for (const cursor of [foreign, 'bm9wZQ.AAAA', await deps.cursors.seal({ version: -1, after: {} })])
      expect(await refusal(listDataSetFiles(deps, platformAdmin, dataSetId, { limit: 10, cursor }))).toMatchObject({
        code: 'VALIDATION_ERROR',
      });
  });

  it('are deleted only once nothing writes to them (409 before), objects and log included', async () => {
    const { store, connection, dataSetId } = await withDataSet();
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x' });
    store.state.files.set(dataSetId, new Map([['dt=2026-11-21/a.parquet', 10]]));
    store.state.logs.set(dataSetId, [commit(0, [{ path: 'dt=2026-11-21/a.parquet', records: 1 }])]);

    expect(await refusal(deleteDataSet(store, platformAdmin, dataSetId))).toMatchObject({ code: 'CONFLICT' });
    expect(store.state.files.get(dataSetId)?.size).toBe(1);
    await deleteConnection(store, platformAdmin, connection.connection_id);
    expect(await deleteDataSet(store, platformAdmin, dataSetId)).toEqual({ deleted: true });
    expect([
      store.state.dataSets.has(dataSetId),
      store.state.logs.has(dataSetId),
      store.state.files.get(dataSetId)?.size,
      store.state.jobs.size,
    ]).toEqual([false, false, 0, 0]);
  });

  it('hand a table too large for one request to a Delete job, which removes it a page at a time', async () => {
    // Prepare: 2,500 objects (over the 1,000 a request deletes at once), nothing writing to the data set.
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x', version: 12 });
    const objects = new Map(Array.from({ length: 2500 }, (_, i) => [`dt=2026-11-21/${String(i).padStart(4, '0')}`, 1]));
    store.state.files.set(dataSetId, objects);
    store.state.logs.set(dataSetId, [commit(0, [{ path: 'dt=2026-11-21/0000', records: 1 }])]);
    store.state.failedDeliveries.set(dataSetId, ['m-1', 'm-2']);
    // Act
    const deletion = await deleteDataSet(store, platformAdmin, dataSetId);
    // Assess: nothing removed by the request; a job of type Delete queued for the data set's table.
    if (deletion.deleted) throw new Error('deleted within the request');
    const job = store.state.jobs.get(deletion.jobId);
    expect({ objects: objects.size, listed: store.state.dataSets.has(dataSetId), job }).toEqual({
      objects: 2500,
      listed: true,
      job: expect.objectContaining({
        job_type: 'Delete',
        status: 'Queued',
        tenant_id: dataSet.tenant_id,
        partition_key: `optimize:${dataSetId}`,
        payload: { data_set_id: dataSetId },
      }),
    });
    expect(store.state.dispatched).toEqual([{ jobId: deletion.jobId, offer: 0, delaySeconds: 0 }]);

    // Act: the job runs; a page at a time, it may stop between pages.
    let pages = 0;
    const outcome = await runDelete(store, readJob(deletePayload, job as Job), {
      throwIfCancelled: async () => {
        pages++;
      },
      beginCommit: async () => undefined,
    });
    // Assess
    expect({ outcome: outcome.source, pages, left: objects.size, listed: store.state.dataSets.has(dataSetId) }).toEqual(
      {
        outcome: { data_set_id: dataSetId, objects_removed: 2500 },
        pages: 3,
        left: 0,
        listed: false,
      },
    );
    expect(store.state.logs.has(dataSetId)).toBe(false);
    expect(store.state.failedDeliveries.has(dataSetId)).toBe(false);
  });

  it('leave a Delete job cancelled after its last page with the data set still listed, to be deleted again', async () => {
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x', version: 300 });
    store.state.files.set(dataSetId, new Map([['dt=2026-11-21/a.parquet', 10]]));
    const deletion = await deleteDataSet(store, platformAdmin, dataSetId);
    if (deletion.deleted) throw new Error('deleted within the request');
    const job = store.state.jobs.get(deletion.jobId) as Job;
    // The cancel comes after the last page was checked: the records' removal is where it is answered.
    const cancelled = new JobCancelled();
    const run = runDelete(store, readJob(deletePayload, job), {
      throwIfCancelled: async () => undefined,
      beginCommit: async () => {
        throw cancelled;
      },
    });
    await expect(run).rejects.toBe(cancelled);
    expect([store.state.files.get(dataSetId)?.size, store.state.dataSets.has(dataSetId)]).toEqual([0, true]);
  });

  it('hand a table of many versions to a job too, even with few files', async () => {
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x', version: 201 });
    store.state.files.set(dataSetId, new Map([['dt=2026-11-21/a.parquet', 10]]));
    const deletion = await deleteDataSet(store, platformAdmin, dataSetId);
    expect({ deleted: deletion.deleted, files: store.state.files.get(dataSetId)?.size }).toEqual({
      deleted: false,
      files: 1,
    });
  });

  it('are removed by a request only while it holds the table: held by a job, the deletion is a job behind it', async () => {
    // Prepare: a small table (removed within a request) whose maintenance run holds it.
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x', version: 3 });
    store.state.files.set(dataSetId, new Map([['dt=2026-11-21/a.parquet', 10]]));
    store.state.logs.set(dataSetId, [commit(0, [{ path: 'dt=2026-11-21/a.parquet', records: 1 }])]);
    store.state.heldTables.add(dataSetId);
    // Act
    const held = await deleteDataSet(store, platformAdmin, dataSetId);
    // Assess: nothing removed; a Delete job on the table's partition, which waits for the run.
    if (held.deleted) throw new Error('deleted beside the run that holds the table');
    expect({
      files: store.state.files.get(dataSetId)?.size,
      log: store.state.logs.has(dataSetId),
      listed: store.state.dataSets.has(dataSetId),
      job: store.state.jobs.get(held.jobId),
    }).toEqual({
      files: 1,
      log: true,
      listed: true,
      job: expect.objectContaining({ job_type: 'Delete', status: 'Queued', partition_key: `optimize:${dataSetId}` }),
    });

    // Act: the run ends; deleting again removes the table within the request, and lets it go after.
    store.state.heldTables.delete(dataSetId);
    expect(await deleteDataSet(store, platformAdmin, dataSetId)).toEqual({ deleted: true });
    expect([
      store.state.files.get(dataSetId)?.size,
      store.state.logs.has(dataSetId),
      store.state.dataSets.has(dataSetId),
      store.state.heldTables.has(dataSetId),
    ]).toEqual([0, false, false, false]);
  });

  it('leave a table whose maintenance run fails, is cancelled or cannot be queued due again in an hour, and free', async () => {
    const { store, dataSetId } = await withDataSet();
    const dataSet = store.state.dataSets.get(dataSetId);
    const at = new Date('2026-11-21T10:00:00Z');
    const finished: { next: string | null }[] = [];
    const control = { throwIfCancelled: async () => undefined, beginCommit: async () => undefined };
    const job = readJob(optimizePayload, {
      job_id: 'j',
      tenant_id: dataSet?.tenant_id,
      payload: { data_set_id: dataSetId, min_files: null, trigger: 'schedule' },
    } as Job);
    for (const thrown of [new Error('STORE_UNREACHABLE: the store did not answer'), new JobCancelled()]) {
      const deps = {
        getDataSet: async () => dataSet,
        maintain: async () => {
          throw thrown;
        },
        finish: async (_: unknown, next: Date | null) => {
          finished.push({ next: next?.toISOString() ?? null });
        },
        now: () => at,
      } as unknown as OptimizeDeps;
      await expect(runOptimize(deps, job, control)).rejects.toBe(thrown);
    }
    // The schedule took the table but could not queue its run.
    const retried: string[] = [];
    const scheduled = scheduleOptimize(
      {
        ...store,
        takeMaintenance: async () => true,
        dispatchJob: async () => {
          throw new Error('SQS did not answer');
        },
        retryMaintenance: async (_id: string, _tenant: string, next: Date) => {
          retried.push(next.toISOString());
        },
      },
      { dataSetId, tenantId: dataSet?.tenant_id as string },
      at,
    );
    await expect(scheduled).rejects.toThrow('The job could not be queued');
    expect({ finished, retried }).toEqual({
      finished: [{ next: '2026-11-21T11:00:00.000Z' }, { next: '2026-11-21T11:00:00.000Z' }],
      retried: ['2026-11-21T11:00:00.000Z'],
    });
  });

  it('once deleted, end the schedule’s maintenance run with nothing done; one asked for through the API fails saying why', async () => {
    const gone = { getDataSet: async () => null } as unknown as OptimizeDeps;
    const control = { throwIfCancelled: async () => undefined, beginCommit: async () => undefined };
    const job = (trigger: 'schedule' | 'api') =>
      readJob(optimizePayload, {
        job_id: 'j',
        tenant_id: 't',
        payload: { data_set_id: 'gone', min_files: null, trigger },
      } as Job);
    expect(await runOptimize(gone, job('schedule'), control)).toEqual({
      rows_in: 0,
      rows_out: 0,
      rows_rejected: 0,
      rows_filtered: 0,
      rejection_samples: [],
      source: { data_set_id: 'gone', trigger: 'schedule', data_set_deleted: true },
    });
    const asked = runOptimize(gone, job('api'), control);
    await expect(asked).rejects.toBeInstanceOf(JobFailure);
    await expect(asked).rejects.toThrow('The data set no longer exists');
  });

  it('are refused (409) while envelopes accepted for them wait staged, then removed with their failed deliveries', async () => {
    // Prepare: the connection deleted, two of its envelopes still staged, one failed delivery kept.
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x', version: 0 });
    store.state.files.set(dataSetId, new Map([['dt=2026-11-21/a.parquet', 10]]));
    store.state.stagedTables.add(dataSetId);
    store.state.failedDeliveries.set(dataSetId, ['m-1']);
    // Act, then assess: refused, nothing removed.
    expect(await refusal(deleteDataSet(store, platformAdmin, dataSetId))).toMatchObject({ code: 'CONFLICT' });
    expect([
      store.state.files.get(dataSetId)?.size,
      store.state.dataSets.has(dataSetId),
      store.state.failedDeliveries.has(dataSetId),
      store.state.heldTables.has(dataSetId),
    ]).toEqual([1, true, true, false]);
    // Act: the staged envelopes committed, deleted again.
    store.state.stagedTables.delete(dataSetId);
    expect(await deleteDataSet(store, platformAdmin, dataSetId)).toEqual({ deleted: true });
    expect([
      store.state.files.get(dataSetId)?.size,
      store.state.dataSets.has(dataSetId),
      store.state.failedDeliveries.has(dataSetId),
    ]).toEqual([0, false, false]);
  });

  it('are refused (409) while a run of their pipeline is under way, the pipeline deleted or not', async () => {
    // Prepare: a pipeline's output whose pipeline is gone, one run of it still going.
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    const pipelineId = 'deleted-pipeline';
    store.state.dataSets.set(dataSetId, {
      ...dataSet,
      origin: { type: 'Pipeline', pipeline_id: pipelineId, pipeline_version: 1 },
    });
    const run = { job_id: 'run-1', partition_key: pipelineId, status: 'Running' } as Job;
    store.state.jobs.set(run.job_id, run);
    // Act, then assess: refused while it runs, deleted once it has ended.
    expect(await refusal(deleteDataSet(store, platformAdmin, dataSetId))).toMatchObject({ code: 'CONFLICT' });
    expect(store.state.dataSets.has(dataSetId)).toBe(true);
    store.state.jobs.set(run.job_id, { ...run, status: 'Succeeded' });
    expect(await deleteDataSet(store, platformAdmin, dataSetId)).toEqual({ deleted: true });
  });

  it('are removed as they are once held: a table whose first commit fixed its storage meanwhile loses its files too', async () => {
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const unwritten = store.state.dataSets.get(dataSetId);
    if (!unwritten) throw new Error('no data set');
    // The request reads the data set before the commit fixes its storage and writes a file, and again once it holds it.
    let reads = 0;
    const racing = {
      ...store,
      async getDataSet(id: string) {
        const read = await store.getDataSet(id);
        if (++reads === 1) {
          store.state.dataSets.set(dataSetId, { ...unwritten, storage_location: 's3://lake/datasets/x', version: 0 });
          store.state.files.set(dataSetId, new Map([['dt=2026-11-21/a.parquet', 10]]));
        }
        return read;
      },
    };
    expect(await deleteDataSet(racing, platformAdmin, dataSetId)).toEqual({ deleted: true });
    expect([store.state.files.get(dataSetId)?.size, store.state.dataSets.has(dataSetId)]).toEqual([0, false]);
  });

  it('let their table go when the request hands it to a job, and when the removal fails', async () => {
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x', version: 201 });
    expect((await deleteDataSet(store, platformAdmin, dataSetId)).deleted).toBe(false);
    expect(store.state.heldTables.has(dataSetId)).toBe(false);

    store.state.dataSets.set(dataSetId, { ...dataSet, storage_location: 's3://lake/datasets/x', version: 1 });
    const failing = {
      ...store,
      deleteLog: async () => {
        throw new Error('the log could not be deleted');
      },
    };
    await expect(deleteDataSet(failing, platformAdmin, dataSetId)).rejects.toThrow('the log could not be deleted');
    expect([store.state.dataSets.has(dataSetId), store.state.heldTables.has(dataSetId)]).toEqual([true, false]);
  });

  it('read their table properties: the defaults before the first commit, then what the latest version sets', async () => {
    const { store, tenantId, dataSetId } = await withDataSet();
    const viewer = tenantPrincipal(tenantId, 'TenantViewer');
    const deps = { ...store, rules: tablePropertyRules, defaultFreshnessMs: 300_000, defaultDataRetentionMs: null };
    const defaults = {
      checkpoint_interval: 10,
      deleted_file_retention_seconds: 604_800,
      log_retention_seconds: 2_592_000,
      target_file_size: 134_217_728,
      optimize_min_files: 50,
      freshness_seconds: 300,
      data_retention_seconds: null,
    };
    expect(await readTableProperties(deps, viewer, dataSetId)).toEqual({
      version: null,
      properties: {},
      effective: defaults,
    });

    const metadata = (configuration: Record<string, string>) => ({
      metaData: {
        ...metadataAction({
          tableId: dataSetId,
          name: 'hook',
          schema: { type: 'struct', fields: [] },
          partitionColumns: ['dt'],
          createdTime: 0,
        }),
        configuration,
      },
    });
    const dataSet = store.state.dataSets.get(dataSetId);
    if (!dataSet) throw new Error('no data set');
    store.state.dataSets.set(dataSetId, {
      ...dataSet,
      object_store_id: 'store-1',
      storage_location: 's3://lake/datasets/x',
      version: 2,
    });
    store.state.logs.set(dataSetId, [
      { version: 0, actions: [metadata({ 'tributary.freshness': 'interval 1 hour' })] },
      commit(1, [{ path: 'dt=2026-11-21/a.parquet', records: 1 }]),
      {
        version: 2,
        actions: [metadata({ 'tributary.freshness': 'interval 45 seconds', 'delta.checkpointInterval': '20' })],
      },
    ]);
    expect(await readTableProperties(deps, viewer, dataSetId)).toEqual({
      version: 2,
      properties: { 'tributary.freshness': 'interval 45 seconds', 'delta.checkpointInterval': '20' },
      effective: { ...defaults, checkpoint_interval: 20, freshness_seconds: 45 },
    });

    const other = await withDataSet();
    expect(
      await refusal(readTableProperties(deps, tenantPrincipal(other.tenantId, 'TenantAdmin'), dataSetId)),
    ).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('set their table properties only while the request holds the table: 409 under a job, 404 once deleted, nothing committed', async () => {
    // Prepare: a data set whose connection is gone; a property change records every commit it makes.
    const { store, connection, dataSetId } = await withDataSet();
    await deleteConnection(store, platformAdmin, connection.connection_id);
    const commits: string[] = [];
    const holds: string[] = [];
    const deps = {
      ...store,
      fixStorage: async <T>(found: T) => found,
      commitProperties: async (dataSet: { data_set_id: string }) => {
        commits.push(dataSet.data_set_id);
        return { version: 1, properties: { 'delta.checkpointInterval': '20' } };
      },
      rules: tablePropertyRules,
      recordFreshnessTarget: async () => undefined,
      askCommitter: async () => undefined,
      defaultFreshnessMs: 300_000,
      defaultDataRetentionMs: null,
      markMaintenanceDue: async () => undefined,
      // The request's hold is checked out of the store's, and the order of holds kept.
      holdTable: async (id: string) => {
        const release = await store.holdTable(id);
        holds.push(release ? 'held' : 'refused');
        return release;
      },
    };
    const set = () => setTableProperties(deps, platformAdmin, dataSetId, { 'delta.checkpointInterval': '20' });

    // Act: a maintenance run (or a Delete job) holds the table.
    const job = await store.holdTable(dataSetId);
    expect(await refusal(set())).toMatchObject({ code: 'CONFLICT' });
    await job?.();
    // Act: free, the change is committed, and the table let go (a deletion may take it at once).
    expect((await set()).version).toBe(1);
    // Act: the data set is deleted between the change's first read and its hold.
    let reads = 0;
    const racing = { ...deps, getDataSet: async (id: string) => (reads++ === 0 ? store.getDataSet(id) : null) };
    expect(
      await refusal(setTableProperties(racing, platformAdmin, dataSetId, { 'delta.checkpointInterval': '30' })),
    ).toMatchObject({ code: 'NOT_FOUND' });
    expect(await deleteDataSet(store, platformAdmin, dataSetId)).toEqual({ deleted: true });

    expect({ commits, holds }).toEqual({ commits: [dataSetId], holds: ['refused', 'held', 'held'] });
  });

  it('wait a few seconds for a table another request holds, then hold it; still held at the end, null', async () => {
    // A lease item as the table keeps it: one holder, released by it.
    let holder: string | null = 'request-other';
    const taken: string[] = [];
    const leases = {
      acquireLease: async (_: string, jobId: string) => {
        if (holder !== null) return false;
        holder = jobId;
        taken.push(jobId);
        return true;
      },
      releaseLease: async () => {
        holder = null;
        return [];
      },
      dispatchJob: async () => undefined,
      newOffer: async () => null,
    };
    const waiting = holdTableWaiting(leases, 'ds-1', { totalMs: 5_000, everyMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    holder = null;
    const release = await waiting;
    expect({ held: release !== null, taken: taken.length }).toEqual({ held: true, taken: 1 });
    await release?.();
    holder = 'a-maintenance-run';
    expect(await holdTableWaiting(leases, 'ds-1', { totalMs: 30, everyMs: 5 })).toBeNull();
  });

  it('are listed to their own tenant only', async () => {
    const { store, tenantId, dataSetId } = await withDataSet();
    const other = await withDataSet();
    const own = await listDataSets(store, tenantPrincipal(tenantId, 'TenantViewer'), { limit: 10 });
    expect(own.items.map((dataSet) => dataSet.data_set_id)).toEqual([dataSetId]);
    expect(
      await refusal(
        listDataSets(store, tenantPrincipal(tenantId, 'TenantViewer'), { tenant_id: other.tenantId, limit: 10 }),
      ),
    ).toMatchObject({ code: 'NOT_FOUND' });
  });
});
