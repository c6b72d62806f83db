/**
 * Ranged re-runs of a pipeline, through the use cases: the trigger's checks, then runPipeline over an
 * in-memory source (its log and envelopes) writing a real Delta output table (Parquet files in an
 * in-memory store, through the commit path the service uses). The output is read as an outside
 * reader would: its JSON commits replayed by hand, its files read by DuckDB.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logFileName } from '#delta/kernel/log.ts';
import { openSnapshot } from '#delta/kernel/snapshot.ts';
import { decodeCheckpoint } from '#delta/parquet/checkpoint-reader.ts';
import { pipelineOutput } from '#shared/adapters/delta-tables.ts';
import { tableMetadataOf } from '#shared/adapters/table-storage.ts';
import { snapshotView } from '#shared/adapters/table-views.ts';
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import type { Job } from '#shared/domain/jobs/model.ts';
import { JobCancelled, type RunControl, readJob } from '#shared/domain/jobs/run-job.ts';
import type { PipelineDefinition } from '#shared/domain/pipelines/definition.ts';
import { pipelineJobPayload, triggerPipeline } from '#shared/domain/pipelines/pipeline-runs.ts';
import { type PipelineRunDeps, pipelineAppId, runPipeline } from '#shared/domain/pipelines/run-pipeline.ts';
import { createPipeline, deployPipeline, updateDefinition } from '#shared/domain/pipelines/use-cases.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { icebergUntouched } from '../support/iceberg-untouched.ts';
import { memoryStore, platformAdmin } from '../support/memory.ts';
import { type MemoryTable, memoryTable, writerOf } from '../support/memory-table.ts';

const running: RunControl = { throwIfCancelled: async () => undefined, beginCommit: async () => undefined };
const columns = [
  { name: 'n', path: '$.n', type: 'long' as const },
  { name: 'type', path: '$.type', type: 'string' as const },
];

async function world() {
  const store = memoryStore();
  const tenant = await createTenant(store, { name: 'Acme' });
  const { dataSet: source } = await createConnection(store, platformAdmin, tenant.tenant_id, {
    type: 'Webhook',
    name: 'hook',
  });
  const envelopes = store.state.envelopes;
  /** Output tables by data set id, each a Delta table in memory. */
  const tables = new Map<string, MemoryTable>();
  const tableOf = (dataSet: DataSet) => {
    const table = tables.get(dataSet.data_set_id) ?? memoryTable({ jitter: false });
    tables.set(dataSet.data_set_id, table);
    return table;
  };
  let sourceVersion = 0;
  /** A source version holding these events on one day. */
  const commit = (dt: string, events: { n: number; type: string }[]) => {
    const file = `dt=${dt}/part-${sourceVersion}.parquet`;
    envelopes.set(
      file,
      events.map((event) => ({
        message_id: `m${event.n}`,
        content_type: 'application/json',
        payload: Buffer.from(JSON.stringify(event)),
      })),
    );
    const stored = store.state.dataSets.get(source.data_set_id) as DataSet;
    store.state.dataSets.set(source.data_set_id, {
      ...stored,
      storage_location: 's3://lake/source',
      version: sourceVersion,
    });
    store.state.logs.set(source.data_set_id, [
      ...(store.state.logs.get(source.data_set_id) ?? []),
      {
        version: sourceVersion,
        actions: [
          {
            add: {
              path: file,
              partitionValues: { dt },
              size: 1,
              modificationTime: sourceVersion,
              dataChange: true,
              stats: `{"numRecords":${events.length}}`,
            },
          },
        ],
      },
    ]);
    sourceVersion++;
  };
  /** The output once written: its store location set, as fixing its storage does. */
  const written = (output: DataSet) => {
    const stored = store.state.dataSets.get(output.data_set_id) as DataSet;
    store.state.dataSets.set(output.data_set_id, { ...stored, storage_location: `s3://lake/${output.data_set_id}` });
    return pipelineOutput(writerOf(tableOf(output)), tableMetadataOf(output));
  };
  const hooks = { beforeRead: async () => undefined };
  const deps: PipelineRunDeps = {
    ...store,
    iceberg: icebergUntouched,
    snapshotOf: async (dataSet) =>
      snapshotView((await openSnapshot({ storage: tableOf(dataSet).storage, decodeCheckpoint })).state),
    envelopeFiles: async (dataSet, version) =>
      (await store.envelopeFiles(dataSet, version)).map((file) => ({
        ...file,
        async readEnvelopes() {
          await hooks.beforeRead();
          return file.readEnvelopes();
        },
      })),
    appendRows: async (output, cols, rows, attempt, txn) => ({
      ...(await written(output).append(cols, rows, attempt, txn)),
      committed: [],
    }),
    replaceRows: async (output, cols, rows, days, attempt, txn) => ({
      ...(await written(output).replace(cols, rows, days, attempt, txn)),
      committed: [],
    }),
    markMaintenanceDue: async () => undefined,
    warn: () => undefined,
  };
  const definition = (output = 'events', where?: PipelineDefinition['where']): PipelineDefinition => ({
    source: { data_set_id: source.data_set_id },
    decode: { format: 'json' },
    columns,
    output: { name: output },
    ...(where ? { where } : {}),
  });
  const pipeline = await createPipeline(store, platformAdmin, {
    tenant_id: tenant.tenant_id,
    name: 'events',
    definition: definition(),
  });
  const pipelineId = pipeline.pipeline_id;
  await deployPipeline(store, platformAdmin, pipelineId, undefined);
  const redeploy = async (next: PipelineDefinition) => {
    await updateDefinition(store, platformAdmin, pipelineId, next);
    await deployPipeline(store, platformAdmin, pipelineId, undefined);
  };
  const run = async (request: { from?: string; to?: string } | null = null, control = running) => {
    const job = await triggerPipeline(store, platformAdmin, pipelineId, request);
    return runPipeline(deps, readJob(pipelineJobPayload, (await store.getJob(job.job_id)) as Job), control);
  };
  const outputId = () => store.state.pipelines.get(pipelineId)?.output_data_set_id as string;
  return { store, source, pipelineId, commit, deps, hooks, definition, redeploy, run, outputId, tables };
}

let duck: Awaited<ReturnType<typeof DuckDBInstance.create>>;
let connection: Awaited<ReturnType<typeof duck.connect>>;
const directory = mkdtempSync(path.join(os.tmpdir(), 'pipeline-rerun-'));
beforeAll(async () => {
  duck = await DuckDBInstance.create(':memory:');
  connection = await duck.connect();
});
afterAll(() => connection.closeSync());

/** Every version's actions, as the log holds them. */
function commits(table: MemoryTable) {
  const found: Record<string, unknown>[][] = [];
  for (let version = 0; table.objects.has(logFileName(version)); version++)
    found.push(
      (table.objects.get(logFileName(version))?.bytes.toString('utf8') ?? '')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    );
  return found;
}

/** The output's rows as `dt n type` lines, sorted: the JSON commits replayed by hand, each live file read by DuckDB. */
async function outputRows(table: MemoryTable | undefined): Promise<string[]> {
  const live = new Map<string, string>();
  for (const actions of commits(table as MemoryTable))
    for (const action of actions as {
      add?: { path: string; partitionValues: { dt: string } };
      remove?: { path: string };
    }[]) {
      if (action.add) live.set(action.add.path, action.add.partitionValues.dt);
      if (action.remove) live.delete(action.remove.path);
    }
  const selects = [...live].map(([key, dt]) => {
    const file = path.join(directory, `${randomUUID()}.parquet`);
    writeFileSync(file, table?.objects.get(key)?.bytes as Buffer);
    return `SELECT '${dt}' AS dt, n, type FROM read_parquet('${file}')`;
  });
  if (selects.length === 0) return [];
  const reader = await connection.runAndReadAll(`${selects.join(' UNION ALL ')} ORDER BY dt, n`);
  return (reader.getRowObjectsJson() as { dt: string; n: string; type: string }[]).map(
    (row) => `${row.dt} ${row.n} ${row.type}`,
  );
}

describe('triggering a ranged re-run', () => {
  it('refuses a range that is not two real days in order, at most 31 apart, and changes nothing', async () => {
    const { store, pipelineId, commit, run } = await world();
    commit('2026-11-01', [{ n: 1, type: 'push' }]);
    await run();
    const refusals: [Record<string, string>, string[]][] = [
      [{ from: '2026-11-01' }, ['to']],
      [{ to: '2026-11-01' }, ['from']],
      [{ from: '2026-02-30', to: '2026-03-01' }, ['from']],
      [{ from: '2026-13-01', to: '2026-13-02' }, ['from', 'to']],
      [{ from: '2026-00-10', to: '2026-11-02' }, ['from']],
      [{ from: '2026-11-1', to: '2026-11-02' }, ['from']],
      [{ from: '2026-11-03', to: '2026-11-02' }, ['from']],
      [{ from: '2026-01-01', to: '2026-02-01' }, ['to']],
    ];
    const jobs = store.state.jobs.size;
    for (const [request, paths] of refusals)
      await expect(
        triggerPipeline(store, platformAdmin, pipelineId, request),
        JSON.stringify(request),
      ).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        details: paths.map((at) => expect.objectContaining({ path: at })),
      });
    expect(store.state.jobs.size).toBe(jobs);
    const longest = await triggerPipeline(store, platformAdmin, pipelineId, { from: '2026-01-01', to: '2026-01-31' });
    expect(longest.payload).toEqual({
      parameters: null,
      trigger: 'api',
      range: { from: '2026-01-01', to: '2026-01-31' },
    });
    expect(longest.partition_key).toBe(pipelineId);
  });

  it('refuses to re-run a pipeline that never ran (409): there is nothing it has read to rebuild', async () => {
    const { store, pipelineId } = await world();
    await expect(
      triggerPipeline(store, platformAdmin, pipelineId, { from: '2026-11-01', to: '2026-11-02' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });
});

// Real Parquet encoding and DuckDB: seconds on a busy machine, not milliseconds.
describe('a ranged re-run', { timeout: 60_000 }, () => {
  it('leaves the output’s rows of a day the source no longer holds (its retention removed it) as they were', async () => {
    const { commit, run, tables, outputId, store, source } = await world();
    commit('2026-11-01', [{ n: 1, type: 'push' }]);
    commit('2026-11-02', [{ n: 2, type: 'push' }]);
    await run();
    // The source's retention removes 2026-11-01 (a version of removes only, as the maintenance run commits).
    store.state.logs.set(source.data_set_id, [
      ...(store.state.logs.get(source.data_set_id) ?? []),
      {
        version: 2,
        actions: [
          {
            remove: {
              path: 'dt=2026-11-01/part-0.parquet',
              deletionTimestamp: 0,
              dataChange: true,
              extendedFileMetadata: true,
              partitionValues: { dt: '2026-11-01' },
              size: 1,
            },
          },
        ],
      },
    ]);
    // The next run reads that version (nothing new in it).
    expect(await run()).toMatchObject({ rows_in: 0 });
    // Act
    const outcome = await run({ from: '2026-11-01', to: '2026-11-02' });
    // Assess: 2026-11-02 rebuilt, 2026-11-01 untouched.
    expect(outcome).toMatchObject({ rows_in: 1, rows_out: 1 });
    expect(await outputRows(tables.get(outputId()))).toEqual(['2026-11-01 1 push', '2026-11-02 2 push']);
  });

  it('replaces the days’ rows with what the deployed version makes of them, in one commit, the same however often it runs', async () => {
    const { commit, run, redeploy, definition, tables, outputId, store, pipelineId, source } = await world();
    commit('2026-11-01', [
      { n: 1, type: 'push' },
      { n: 2, type: 'issue' },
    ]);
    commit('2026-11-02', [
      { n: 3, type: 'push' },
      { n: 4, type: 'issue' },
    ]);
    commit('2026-11-03', [{ n: 5, type: 'push' }]);
    expect(await run()).toMatchObject({ rows_in: 5, rows_out: 5 });
    const table = () => tables.get(outputId());
    expect(await outputRows(table())).toEqual([
      '2026-11-01 1 push',
      '2026-11-01 2 issue',
      '2026-11-02 3 push',
      '2026-11-02 4 issue',
      '2026-11-03 5 push',
    ]);

    await redeploy(definition('events', { path: '$.type', equals: 'push' }));
    const rerun = await run({ from: '2026-11-02', to: '2026-11-03' });
    expect(rerun).toMatchObject({
      rows_in: 3,
      rows_out: 2,
      rows_filtered: 1,
      rows_rejected: 0,
      source: {
        pipeline_version: 2,
        range: { from: '2026-11-02', to: '2026-11-03' },
        source_version: 2,
        files_replaced: 2,
        rows_replaced: 3,
      },
    });
    const expected = ['2026-11-01 1 push', '2026-11-01 2 issue', '2026-11-02 3 push', '2026-11-03 5 push'];
    expect(await outputRows(table())).toEqual(expected);

    const log = commits(table() as MemoryTable);
    const replacement = log.at(-1) as Record<string, Record<string, unknown>>[];
    expect(replacement[0]?.commitInfo).toMatchObject({
      operation: 'WRITE',
      operationParameters: { mode: 'Overwrite', predicate: `["dt IN ('2026-11-02', '2026-11-03')"]` },
      isBlindAppend: false,
    });
    expect(replacement.filter((action) => action.remove).every((action) => action.remove?.dataChange === true)).toBe(
      true,
    );
    // The txn the runs keep, carried as it was: the source version they read up to.
    expect(replacement.find((action) => action.txn)?.txn).toMatchObject({
      appId: pipelineAppId(pipelineId, source.data_set_id),
      version: 2,
    });

    // Run again (a retry, or an operator's second try): the same rows, once.
    expect((await run({ from: '2026-11-02', to: '2026-11-03' })).source).toMatchObject({ rows_replaced: 2 });
    expect(await outputRows(table())).toEqual(expected);
    expect(commits(table() as MemoryTable)).toHaveLength(log.length + 1);
    expect(store.state.pipelines.get(pipelineId)?.checkpoint).toEqual({ data_set_id: source.data_set_id, version: 2 });
  });

  it('leaves rows committed after the runs’ progress to the next run, which writes each once', async () => {
    const { commit, run, tables, outputId } = await world();
    commit('2026-11-02', [{ n: 1, type: 'push' }]);
    commit('2026-11-03', [{ n: 2, type: 'push' }]);
    await run();
    commit('2026-11-03', [{ n: 3, type: 'push' }]);
    commit('2026-11-04', [{ n: 4, type: 'push' }]);

    expect(await run({ from: '2026-11-03', to: '2026-11-04' })).toMatchObject({
      rows_in: 1,
      rows_out: 1,
      source: { source_version: 1 },
    });
    expect(await run()).toMatchObject({ rows_in: 2, rows_out: 2, source: { from_version: 2, to_version: 3 } });
    expect(await outputRows(tables.get(outputId()))).toEqual([
      '2026-11-02 1 push',
      '2026-11-03 2 push',
      '2026-11-03 3 push',
      '2026-11-04 4 push',
    ]);
  });

  it('fails a late job of a version no longer deployed rather than start an output of its own', async () => {
    const { commit, run, redeploy, definition, outputId, store, pipelineId, deps } = await world();
    commit('2026-11-01', [{ n: 1, type: 'push' }]);
    await run();
    // A job of version 1, queued before version 2 (another output) is deployed and has run.
    const late = await triggerPipeline(store, platformAdmin, pipelineId, null);
    await redeploy(definition('events_v2'));
    await run();
    const second = outputId();
    await expect(
      runPipeline(deps, readJob(pipelineJobPayload, (await store.getJob(late.job_id)) as Job), running),
    ).rejects.toThrow('no longer deployed');
    expect(outputId()).toBe(second);
    expect([...store.state.dataSets.values()].filter((dataSet) => dataSet.name.startsWith('events'))).toHaveLength(2);
  });

  it('fills a new output from the source’s start, as a first run does, and the next run appends to that output', async () => {
    const { commit, run, redeploy, definition, tables, outputId, store } = await world();
    commit('2026-11-01', [{ n: 1, type: 'push' }]);
    commit('2026-11-02', [{ n: 2, type: 'push' }]);
    await run();
    const first = outputId();
    await redeploy(definition('events_v2'));
    // A ranged re-run has nothing of the new output's to rebuild yet.
    await expect(run({ from: '2026-11-02', to: '2026-11-02' })).rejects.toThrow('has not read its source yet');
    await run();
    const second = outputId();
    expect(second).not.toBe(first);
    expect(store.state.dataSets.get(second)?.name).toBe('events_v2');
    commit('2026-11-03', [{ n: 3, type: 'push' }]);
    await run();
    expect(outputId()).toBe(second);
    expect(await outputRows(tables.get(second))).toEqual([
      '2026-11-01 1 push',
      '2026-11-02 2 push',
      '2026-11-03 3 push',
    ]);
    expect(await outputRows(tables.get(first))).toEqual(['2026-11-01 1 push', '2026-11-02 2 push']);
    expect([...store.state.dataSets.values()].filter((dataSet) => dataSet.name.startsWith('events'))).toHaveLength(2);
  });

  it('changes nothing when cancelled before its commit, or when a run of the pipeline committed meanwhile', async () => {
    const { commit, run, tables, outputId, hooks, deps, source, pipelineId } = await world();
    commit('2026-11-01', [{ n: 1, type: 'push' }]);
    await run();
    const table = tables.get(outputId()) as MemoryTable;
    const objects = () => [...table.objects.keys()].sort();
    const before = { rows: await outputRows(table), objects: objects() };

    const cancelled: RunControl = {
      throwIfCancelled: async () => undefined,
      beginCommit: async () => {
        throw new JobCancelled();
      },
    };
    await expect(run({ from: '2026-11-01', to: '2026-11-01' }, cancelled)).rejects.toBeInstanceOf(JobCancelled);
    expect({ rows: await outputRows(table), objects: objects() }).toEqual(before);

    // A runner whose lease ran out commits its rows (and moves the txn) while the re-run reads.
    commit('2026-11-01', [{ n: 2, type: 'push' }]);
    const output = (await deps.getDataSet(outputId())) as DataSet;
    hooks.beforeRead = async () => {
      hooks.beforeRead = async () => undefined;
      const row = { messageId: 'm2', dt: '2026-11-01', cells: [2n, 'push'] };
      await deps.appendRows(output, columns, [row], 1, {
        appId: pipelineAppId(pipelineId, source.data_set_id),
        version: 1,
        after: 0,
        readVersion: 0,
      });
    };
    const afterStale = async () => ({ rows: await outputRows(table), objects: objects() });
    await expect(run({ from: '2026-11-01', to: '2026-11-01' })).rejects.toThrow(
      /committed while this one was being made/,
    );
    const stale = await afterStale();
    expect(stale.rows).toEqual(['2026-11-01 1 push', '2026-11-01 2 push']);
    // The re-run's own files were deleted: only the stale run's file and log entry are new.
    expect(stale.objects.filter((key) => !before.objects.includes(key))).toHaveLength(2);
  });
});
