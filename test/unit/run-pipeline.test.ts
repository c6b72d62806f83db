/**
 * runPipeline and runQuery, the job runner's use cases, through in-memory ports: the source table's
 * log and envelopes in Maps, the output rows collected as they are appended. The running service
 * checks the wiring (Parquet in the tenant's store, read back by DuckDB).
 */

import { describe, expect, it } from 'vitest';
import { createConnection } from '#shared/domain/connections/use-cases.ts';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import type { DomainError } from '#shared/domain/errors.ts';
import type { Job } from '#shared/domain/jobs/model.ts';
import { JobCancelled, type RunControl, readJob } from '#shared/domain/jobs/run-job.ts';
import type { PipelineDefinition } from '#shared/domain/pipelines/definition.ts';
import { startRunsOnNewData } from '#shared/domain/pipelines/on-new-data.ts';
import { pipelineJobPayload, triggerPipeline } from '#shared/domain/pipelines/pipeline-runs.ts';
import { queryJobPayload, startQuery } from '#shared/domain/pipelines/queries.ts';
import { type DecodedRow, type PipelineRunDeps, runPipeline, runQuery } from '#shared/domain/pipelines/run-pipeline.ts';
import { suggestColumns } from '#shared/domain/pipelines/suggest-columns.ts';
import {
  createPipeline,
  deployPipeline,
  setPipelineStatus,
  updateDefinition,
} from '#shared/domain/pipelines/use-cases.ts';
import { createTenant } from '#shared/domain/tenants/use-cases.ts';
import { icebergUntouched } from '../support/iceberg-untouched.ts';
import { memoryStore, platformAdmin, tenantPrincipal } from '../support/memory.ts';

const columns = [
  { name: 'action', path: '$.action', type: 'string' as const },
  { name: 'number', path: '$.number', type: 'long' as const },
  { name: 'merged', path: '$.pr.merged', type: 'boolean' as const },
];

const running: RunControl = { throwIfCancelled: async () => undefined, beginCommit: async () => undefined };

async function world() {
  const store = memoryStore();
  const tenant = await createTenant(store, { name: 'Acme' });
  const { dataSet } = await createConnection(store, platformAdmin, tenant.tenant_id, { type: 'Webhook', name: 'hook' });
  const envelopes = store.state.envelopes;
  const output = new Map<string, { dataSetId: string; row: DecodedRow }>();
  /** Every row handed to the output table, in order. */
  const appended: DecodedRow[] = [];
  let version = 0;
  /** A committed source version holding these payloads (message ids m<n>), on one day. */
  const commit = (
    payloads: Record<string, unknown>,
    contentType: string | null = null,
    size = 1,
    day = '2026-11-21',
  ) => {
    const path = `dt=${day}/part-${version}.parquet`;
    envelopes.set(
      path,
      Object.entries(payloads).map(([id, payload]) => ({
        message_id: id,
        content_type: contentType,
        payload:
          payload instanceof Uint8Array
            ? payload
            : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)),
      })),
    );
    const add = {
      path,
      partitionValues: { dt: day },
      size,
      modificationTime: 0,
      dataChange: true,
      stats: `{"numRecords":${Object.keys(payloads).length}}`,
    };
    const source = store.state.dataSets.get(dataSet.data_set_id) as DataSet;
    store.state.dataSets.set(dataSet.data_set_id, {
      ...source,
      storage_location: 's3://lake/datasets/source',
      version,
    });
    store.state.logs.set(dataSet.data_set_id, [
      ...(store.state.logs.get(dataSet.data_set_id) ?? []),
      { version, actions: [{ add }] },
    ]);
    // As every commit does (table-storage's recordTableVersion).
    store.noteNewRows(dataSet.data_set_id);
    version++;
  };
  const deps: PipelineRunDeps = {
    ...store,
    iceberg: icebergUntouched,
    async appendRows(target, _, rows) {
      appended.push(...rows);
      let written = 0;
      for (const row of rows) {
        if (output.has(row.messageId)) continue;
        output.set(row.messageId, { dataSetId: target.data_set_id, row });
        written++;
      }
      return { version: 0, written, committed: [] };
    },
    replaceRows: async () => {
      throw new Error('Ranged re-runs are tested in pipeline-rerun.test.ts');
    },
    markMaintenanceDue: async () => undefined,
    warn: () => undefined,
  };
  const definition = (name = 'pull_requests', cols = columns): PipelineDefinition => ({
    source: { data_set_id: dataSet.data_set_id },
    decode: { format: 'json' },
    columns: cols,
    output: { name },
  });
  const deployedPipeline = async () => {
    const pipeline = await createPipeline(store, platformAdmin, {
      tenant_id: tenant.tenant_id,
      name: 'prs',
      definition: definition(),
    });
    await deployPipeline(store, platformAdmin, pipeline.pipeline_id, undefined);
    return pipeline.pipeline_id;
  };
  const trigger = async (pipelineId: string): Promise<Job> => {
    const job = await triggerPipeline(store, platformAdmin, pipelineId, null);
    return (await store.getJob(job.job_id)) as Job;
  };
  return { store, tenant, dataSet, commit, deps, output, appended, definition, deployedPipeline, trigger };
}

describe.concurrent('runPipeline', () => {
  it('decodes typed columns, rejects and samples what does not fit, and writes the rest to a new output table', async () => {
    const { commit, deps, output, deployedPipeline, trigger, store, dataSet } = await world();
    commit({
      m1: { action: 'opened', number: 1, pr: { merged: false } },
      m2: { action: 'closed', number: '2' },
      m3: '{"action": "broken"',
      m4: { number: 'seven' },
      m5: { pr: { merged: 'yes' } },
    });
    const pipelineId = await deployedPipeline();
    const outcome = await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    expect(outcome).toMatchObject({
      rows_in: 5,
      rows_out: 2,
      rows_rejected: 3,
      source: {
        pipeline_id: pipelineId,
        pipeline_version: 1,
        data_set_id: dataSet.data_set_id,
        from_version: 0,
        to_version: 0,
      },
    });
    expect(outcome.rejection_samples).toEqual([
      { message_id: 'm3', reason: 'payload is not valid JSON' },
      { message_id: 'm4', reason: 'column number: expected long, got string' },
      { message_id: 'm5', reason: 'column merged: expected boolean, got string' },
    ]);
    expect([...output.values()].map(({ row }) => [row.messageId, row.dt, ...row.cells])).toEqual([
      ['m1', '2026-11-21', 'opened', 1n, false],
      ['m2', '2026-11-21', 'closed', 2n, null],
    ]);
    const progress = store.state.pipelines.get(pipelineId);
    const created = store.state.dataSets.get(progress?.output_data_set_id as string);
    expect(created).toMatchObject({
      name: 'pull_requests',
      tenant_slug: 'acme',
      status: 'Pending',
      origin: { type: 'Pipeline', pipeline_id: pipelineId, pipeline_version: 1 },
      partitioning: { columns: ['dt'], granularity: 'day' },
    });
    expect(created?.schema_json.fields.map((field) => [field.name, field.type])).toEqual([
      ['dt', 'string'],
      ['action', 'string'],
      ['number', 'long'],
      ['merged', 'boolean'],
    ]);
    expect(progress?.checkpoint).toEqual({ data_set_id: dataSet.data_set_id, version: 0 });
  });

  it('counts every row it reads as written, filtered out or rejected: one per NDJSON line', async () => {
    const { commit, deps, appended, store, trigger, definition, tenant } = await world();
    commit(
      {
        m1: '{"type":"push","number":1}\n{"type":"issue","number":2}\nnot json\n\n{"type":"push","number":"x"}',
        m2: '{"type":"push","number":3}',
        m3: Buffer.from([0x7b, 0xff, 0x7d]),
      },
      'application/x-ndjson',
    );
    const pipeline = await createPipeline(store, platformAdmin, {
      tenant_id: tenant.tenant_id,
      name: 'pushes',
      definition: {
        ...definition('pushes', columns.slice(1, 2)),
        decode: { format: 'auto' },
        where: { path: '$.type', equals: 'push' },
      },
    });
    await deployPipeline(store, platformAdmin, pipeline.pipeline_id, undefined);
    const outcome = await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipeline.pipeline_id)), running);
    expect(outcome).toMatchObject({ rows_in: 6, rows_out: 2, rows_filtered: 1, rows_rejected: 3 });
    expect(outcome.rejection_samples).toEqual([
      { message_id: 'm1', reason: 'line 3 is not valid JSON' },
      { message_id: 'm1', reason: 'column number: expected long, got string' },
      { message_id: 'm3', reason: 'payload is not valid UTF-8' },
    ]);
    expect(appended.map((row) => [row.messageId, ...row.cells])).toEqual([
      ['m1', 1n],
      ['m2', 3n],
    ]);
  });

  it('reads only the source versions after its checkpoint: nothing new, nothing written', async () => {
    const { commit, deps, output, deployedPipeline, trigger, store } = await world();
    commit({ m1: { action: 'a' } });
    const pipelineId = await deployedPipeline();
    await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    const outputs = store.state.dataSets.size;
    expect(await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running)).toMatchObject({
      rows_in: 0,
      rows_out: 0,
    });
    expect(store.state.dataSets.size).toBe(outputs);
    commit({ m2: { action: 'b' }, m3: { action: 'c' } });
    expect(await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running)).toMatchObject({
      rows_in: 2,
      rows_out: 2,
      source: { from_version: 1, to_version: 1 },
    });
    expect([...output.keys()]).toEqual(['m1', 'm2', 'm3']);
  });

  it('reads a source whose early files were compacted and cleaned up from its latest snapshot, each row once', async () => {
    // Prepare: three commits of the source, then a compaction into one file (dataChange false); the
    // vacuum deleted the three files and the log clean-up their commits, as a week and a month do.
    const { commit, deps, output, deployedPipeline, trigger, store, dataSet } = await world();
    commit({ m1: { action: 'a', number: 1 } });
    commit({ m2: { action: 'b', number: 2 } });
    commit({ m3: { action: 'c', number: 3 } });
    // Version 3, the compaction (its log entry is replaced below).
    commit({});
    const compacted = 'dt=2026-11-21/part-compacted.parquet';
    store.state.envelopes.set(
      compacted,
      ['m1', 'm2', 'm3'].flatMap(
        (id) => store.state.envelopes.get(`dt=2026-11-21/part-${Number(id[1]) - 1}.parquet`) ?? [],
      ),
    );
    for (const version of [0, 1, 2]) store.state.envelopes.delete(`dt=2026-11-21/part-${version}.parquet`);
    store.state.logs.set(dataSet.data_set_id, [
      {
        version: 3,
        actions: [
          {
            add: {
              path: compacted,
              partitionValues: { dt: '2026-11-21' },
              size: 3,
              modificationTime: 0,
              dataChange: false,
              stats: '{"numRecords":3}',
            },
          },
        ],
      },
    ]);
    store.state.dataSets.set(dataSet.data_set_id, {
      ...(store.state.dataSets.get(dataSet.data_set_id) as DataSet),
      version: 3,
    });
    const pipelineId = await deployedPipeline();

    // Act: the first run, then one after a new commit.
    const first = await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    commit({ m4: { action: 'd', number: 4 } });
    const second = await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);

    // Assess: every row once; the first read ended at version 3, the next run read version 4 only.
    expect(first).toMatchObject({ rows_in: 3, rows_out: 3, source: { from_version: 0, to_version: 3 } });
    expect(second).toMatchObject({ rows_in: 1, rows_out: 1, source: { from_version: 4, to_version: 4 } });
    expect([...output.keys()].sort()).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(store.state.pipelines.get(pipelineId)?.checkpoint).toEqual({ data_set_id: dataSet.data_set_id, version: 4 });
  });

  it('goes on with a first read where the pipeline recorded it stopped, in the same order of files', async () => {
    // Prepare: two files on two days; the pipeline recorded one file of version 1's snapshot read.
    const { commit, deps, output, deployedPipeline, trigger, store, dataSet } = await world();
    commit({ m1: { action: 'a' } });
    commit({ m2: { action: 'b' } });
    const pipelineId = await deployedPipeline();
    const pipeline = store.state.pipelines.get(pipelineId);
    if (!pipeline) throw new Error('no pipeline');
    store.state.pipelines.set(pipelineId, {
      ...pipeline,
      checkpoint: { data_set_id: dataSet.data_set_id, version: -1, first_read: { version: 1, files: 1 } },
    });

    // Act
    const outcome = await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);

    // Assess: the second file of the snapshot (part-1, after part-0 by path) only, then the read is over.
    expect(outcome).toMatchObject({ rows_in: 1, rows_out: 1, source: { snapshot_files_read: 2, snapshot_files: 2 } });
    expect([...output.keys()]).toEqual(['m2']);
    expect(store.state.pipelines.get(pipelineId)?.checkpoint).toEqual({ data_set_id: dataSet.data_set_id, version: 1 });
  });

  it('reads only the new rows of another engine’s copy-on-write rewrite of the source, not the file’s other rows again', async () => {
    // Prepare: a file of three events, read by a run.
    const { commit, deps, appended, deployedPipeline, trigger, store, dataSet } = await world();
    commit({ m1: { action: 'a' }, m2: { action: 'b' }, m3: { action: 'c' } });
    const pipelineId = await deployedPipeline();
    await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    // Spark's MERGE (protocol 1,2: no deletion vectors): m2 deleted and m4 inserted by rewriting the file whole.
    const rewritten = 'dt=2026-11-21/part-rewrite.parquet';
    store.state.envelopes.set(
      rewritten,
      ['m1', 'm3', 'm4'].map((id) => ({
        message_id: id,
        content_type: null,
        payload: Buffer.from(JSON.stringify({ action: id })),
      })),
    );
    store.state.logs.set(dataSet.data_set_id, [
      ...(store.state.logs.get(dataSet.data_set_id) ?? []),
      {
        version: 1,
        actions: [
          {
            remove: {
              path: 'dt=2026-11-21/part-0.parquet',
              deletionTimestamp: 0,
              dataChange: true,
              extendedFileMetadata: true,
              partitionValues: { dt: '2026-11-21' },
              size: 1,
            },
          },
          {
            add: {
              path: rewritten,
              partitionValues: { dt: '2026-11-21' },
              size: 1,
              modificationTime: 0,
              dataChange: true,
              stats: '{"numRecords":3}',
            },
          },
        ],
      },
    ]);
    // Act
    const outcome = await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    // Assess: m4 only; every row handed to the output once.
    expect(outcome).toMatchObject({ rows_in: 1, rows_out: 1, source: { from_version: 1, to_version: 1 } });
    expect(appended.map((row) => row.messageId)).toEqual(['m1', 'm2', 'm3', 'm4']);
  });

  it('makes one output of two first runs that read the same chosen snapshot: the later to name its output fails', async () => {
    const { commit, deps, appended, deployedPipeline, trigger, store } = await world();
    commit({ m1: { action: 'a' } });
    const pipelineId = await deployedPipeline();
    // Run A records its snapshot, then stalls reading (its lease lapses); run B starts, adopts it and ends.
    let resume: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let reading: () => void = () => undefined;
    const readingStarted = new Promise<void>((resolve) => {
      reading = resolve;
    });
    const slow: typeof deps = {
      ...deps,
      envelopeFiles: async (...args) => {
        reading();
        await stalled;
        return deps.envelopeFiles(...args);
      },
    };
    const a = runPipeline(slow, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    await readingStarted;
    const b = await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    resume();
    await expect(a).rejects.toThrow('progressed meanwhile');
    expect(b).toMatchObject({ rows_out: 1 });
    expect(appended.map((row) => row.messageId)).toEqual(['m1']);
    expect([...store.state.dataSets.values()].filter((dataSet) => dataSet.name === 'pull_requests')).toHaveLength(1);
  });

  it('runs the version the job was started with, whatever the working copy says now', async () => {
    const { commit, deps, output, deployedPipeline, trigger, store, definition } = await world();
    commit({ m1: { action: 'a', number: 1 } });
    const pipelineId = await deployedPipeline();
    const job = await trigger(pipelineId);
    await updateDefinition(store, platformAdmin, pipelineId, definition('other', columns.slice(0, 1)));
    await runPipeline(deps, readJob(pipelineJobPayload, job), running);
    expect(output.get('m1')?.row.cells).toEqual(['a', 1n, null]);
  });

  it('makes no output and writes nothing when its pipeline is deleted while its first run reads', async () => {
    const { commit, deps, output, deployedPipeline, trigger, store } = await world();
    commit({ m1: { action: 'a' } });
    const pipelineId = await deployedPipeline();
    const job = readJob(pipelineJobPayload, await trigger(pipelineId));
    const dataSets = store.state.dataSets.size;
    // The run reads the pipeline at its start; it is deleted before the run would make its output.
    let reads = 0;
    const deleting = {
      ...deps,
      async getPipeline(id: string) {
        const found = await deps.getPipeline(id);
        return ++reads === 1 ? found : null;
      },
    };
    await expect(runPipeline(deleting, job, running)).rejects.toThrow('The pipeline was deleted during the run');
    expect({ dataSets: store.state.dataSets.size, written: output.size }).toEqual({ dataSets, written: 0 });
  });

  it('names its new output on the pipeline before it commits: a run failing after its commit is followed by one into the same output', async () => {
    const { commit, deps, output, deployedPipeline, trigger, store } = await world();
    commit({ m1: { action: 'a' }, m2: { action: 'b' } });
    const pipelineId = await deployedPipeline();
    // The checkpoint's write fails once the rows are committed (throttled, or the run's time ran out there).
    let saves = 0;
    const failing = {
      ...deps,
      async saveProgress(...args: Parameters<typeof deps.saveProgress>) {
        if (args[2].checkpoint !== null && saves++ === 0) throw new Error('ProvisionedThroughputExceededException');
        return deps.saveProgress(...args);
      },
    };
    await expect(runPipeline(failing, readJob(pipelineJobPayload, await trigger(pipelineId)), running)).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
    await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    const outputs = [...store.state.dataSets.values()].filter((dataSet) => dataSet.origin.type === 'Pipeline');
    expect(outputs).toHaveLength(1);
    expect(new Set([...output.values()].map((row) => row.dataSetId))).toEqual(new Set([outputs[0]?.data_set_id]));
    expect(store.state.pipelines.get(pipelineId)?.output_data_set_id).toBe(outputs[0]?.data_set_id);
  });

  it('writes nothing and keeps its checkpoint when cancelled before the commit', async () => {
    const { commit, deps, output, deployedPipeline, trigger, store, dataSet } = await world();
    commit({ m1: { action: 'a' } });
    const pipelineId = await deployedPipeline();
    const cancelled = new Error('cancelled');
    const control: RunControl = {
      throwIfCancelled: async () => undefined,
      beginCommit: async () => {
        throw cancelled;
      },
    };
    await expect(runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), control)).rejects.toBe(
      cancelled,
    );
    expect(output.size).toBe(0);
    // The first read's snapshot is chosen, and none of its files read.
    expect(store.state.pipelines.get(pipelineId)?.checkpoint).toEqual({
      data_set_id: dataSet.data_set_id,
      version: -1,
      first_read: { version: 0, files: 0 },
    });
  });

  it('reads a snapshot chosen once: of two first runs started together, one reads it and the other changes nothing', async () => {
    const { commit, deps, appended, deployedPipeline, trigger, store, dataSet } = await world();
    commit({ m1: { action: 'a' } });
    commit({ m2: { action: 'b' } });
    const pipelineId = await deployedPipeline();
    const [a, b] = [await trigger(pipelineId), await trigger(pipelineId)];
    const outcomes = await Promise.allSettled([
      runPipeline(deps, readJob(pipelineJobPayload, a), running),
      runPipeline(deps, readJob(pipelineJobPayload, b), running),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(appended.map((row) => row.messageId)).toEqual(['m1', 'm2']);
    expect(store.state.pipelines.get(pipelineId)?.checkpoint).toEqual({ data_set_id: dataSet.data_set_id, version: 1 });
  });

  it('refuses to write other columns under an existing output’s name', async () => {
    const { commit, deps, deployedPipeline, trigger, store, definition } = await world();
    commit({ m1: { action: 'a' } });
    const pipelineId = await deployedPipeline();
    await runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running);
    await updateDefinition(store, platformAdmin, pipelineId, definition('pull_requests', columns.slice(0, 2)));
    await deployPipeline(store, platformAdmin, pipelineId, undefined);
    commit({ m2: { action: 'b' } });
    await expect(runPipeline(deps, readJob(pipelineJobPayload, await trigger(pipelineId)), running)).rejects.toThrow(
      'The columns of version 2 differ from those of output "pull_requests"; give the output a new name',
    );
  });
});

describe.concurrent('runQuery', () => {
  it('returns the decoded rows up to the limit, timestamps with microseconds, and says it truncated', async () => {
    const { commit, deps, store, tenant, dataSet } = await world();
    commit({
      m1: { n: 1, at: '2026-11-21T10:00:00.000001Z' },
      m2: '{"n": 9007199254740993}',
      m3: 'garbage',
      m4: { n: 4, at: 1795000000 },
      m5: { n: 5 },
    });
    const job = await startQuery(store, platformAdmin, {
      tenant_id: tenant.tenant_id,
      query: {
        source: { data_set_id: dataSet.data_set_id },
        decode: { format: 'json' },
        columns: [
          { name: 'n', path: '$.n', type: 'long' },
          { name: 'at', path: '$.at', type: 'timestamp' },
        ],
      },
      limit: 2,
    });
    const outcome = await runQuery(deps, readJob(queryJobPayload, job), running);
    expect(outcome.result).toEqual({
      columns: [
        { name: 'dt', type: 'string' },
        { name: 'n', type: 'long' },
        { name: 'at', type: 'timestamp' },
      ],
      rows: [
        ['2026-11-21', 1, '2026-11-21T10:00:00.000001Z'],
        // A long beyond 2^53 is read exactly (not rounded to …992), and given as text, as JSON cannot hold it.
        ['2026-11-21', '9007199254740993', null],
      ],
      truncated: true,
      truncated_by: 'limit',
      scanned: { files: 1, files_total: 1, bytes: 1, bytes_total: 1 },
    });
    expect(outcome).toMatchObject({ rows_in: 2, rows_out: 2, rows_rejected: 0 });
  });
  it('keeps at most 16 MiB of JSON as the result, and says the size stopped it', async () => {
    const { commit, deps, store, tenant, dataSet } = await world();
    // 20 rows of ["2026-11-21","<1,000,000 a>"]: 1,000,018 bytes each with its comma; 16 fit in 16,777,216, 17 do not.
    const text = 'a'.repeat(1_000_000);
    commit(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`m${i}`, { text }])));
    const job = await startQuery(store, platformAdmin, {
      tenant_id: tenant.tenant_id,
      query: {
        source: { data_set_id: dataSet.data_set_id },
        decode: { format: 'json' },
        columns: [{ name: 'text', path: '$.text', type: 'string' }],
      },
      limit: 10_000,
    });
    const outcome = await runQuery(deps, readJob(queryJobPayload, job), running);
    expect(outcome.result.rows.length).toBe(16);
    expect(outcome.result.rows[15]).toEqual(['2026-11-21', text]);
    expect([outcome.result.truncated, outcome.result.truncated_by]).toEqual([true, 'size']);
    expect(Buffer.byteLength(JSON.stringify(outcome.result))).toBeLessThanOrEqual(16 * 1024 * 1024);
    // The rows left out are not counted as read: in = out + rejected + filtered.
    expect(outcome).toMatchObject({ rows_in: 16, rows_out: 16, rows_rejected: 0, rows_filtered: 0 });
  });

  /** A query whose `where` matches none of the rows: it reads until something stops it. */
  const matchingNothing = (dataSetId: string) => ({
    source: { data_set_id: dataSetId },
    decode: { format: 'json' as const },
    columns: [{ name: 'n', path: '$.n', type: 'long' as const }],
    where: { path: '$.type', equals: 'never.sent' },
  });

  it('stops reading before the file that would take it past 4 GiB of the data set, and says how far it read', async () => {
    const { commit, deps, store, tenant, dataSet } = await world();
    const gib = 1024 ** 3;
    // Five files of 1.5 GiB: two are 3 GiB, a third would be 4.5.
    for (let i = 0; i < 5; i++) commit({ [`m${i}`]: { n: i } }, null, 1.5 * gib);
    const job = await startQuery(store, platformAdmin, {
      tenant_id: tenant.tenant_id,
      query: matchingNothing(dataSet.data_set_id),
    });
    const outcome = await runQuery(deps, readJob(queryJobPayload, job), running);
    expect(outcome.result).toEqual({
      columns: [
        { name: 'dt', type: 'string' },
        { name: 'n', type: 'long' },
      ],
      rows: [],
      truncated: true,
      truncated_by: 'scan',
      scanned: { files: 2, files_total: 5, bytes: 3 * gib, bytes_total: 7.5 * gib },
    });
    expect(outcome).toMatchObject({ rows_in: 2, rows_out: 0, rows_rejected: 0, rows_filtered: 2 });
  });

  it('reads only the days asked for, both ends included, and counts its scan against them', async () => {
    const { commit, deps, store, tenant, dataSet } = await world();
    // One file a day, 19 to 22 November, each of one event named by its day.
    for (const day of ['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22'])
      commit({ [`m${day}`]: { n: Number(day.slice(8)) } }, null, 10, day);
    const query = {
      source: { data_set_id: dataSet.data_set_id },
      decode: { format: 'json' as const },
      columns: [{ name: 'n', path: '$.n', type: 'long' as const }],
    };
    const run = async (days: { from?: string; to?: string }) =>
      (
        await runQuery(
          deps,
          readJob(
            queryJobPayload,
            await startQuery(store, platformAdmin, { tenant_id: tenant.tenant_id, query, ...days }),
          ),
          running,
        )
      ).result;
    const between = await run({ from: '2026-11-20', to: '2026-11-21' });
    expect({ rows: between.rows, scanned: between.scanned }).toEqual({
      rows: [
        ['2026-11-20', 20],
        ['2026-11-21', 21],
      ],
      scanned: { files: 2, files_total: 2, bytes: 20, bytes_total: 20 },
    });
    expect((await run({ from: '2026-11-22' })).rows).toEqual([['2026-11-22', 22]]);
    expect((await run({ to: '2026-11-19' })).rows).toEqual([['2026-11-19', 19]]);
    expect((await run({})).rows).toHaveLength(4);
  });

  it('refuses days that are not dates, or a from after its to, and queues nothing', async () => {
    const { store, tenant, dataSet } = await world();
    const query = {
      source: { data_set_id: dataSet.data_set_id },
      decode: { format: 'json' as const },
      columns: [{ name: 'n', path: '$.n', type: 'long' as const }],
    };
    const refusal = (days: { from?: string; to?: string }) =>
      startQuery(store, platformAdmin, { tenant_id: tenant.tenant_id, query, ...days }).then(
        () => 'queued',
        (error: DomainError) => [error.code, error.details],
      );
    expect([
      await refusal({ from: '2026-02-30' }),
      await refusal({ to: '2026-13-01' }),
      await refusal({ from: '2026-11-22', to: '2026-11-21' }),
    ]).toEqual([
      ['VALIDATION_ERROR', [{ path: 'from', message: 'Must be a date (UTC): YYYY-MM-DD' }]],
      ['VALIDATION_ERROR', [{ path: 'to', message: 'Must be a date (UTC): YYYY-MM-DD' }]],
      ['VALIDATION_ERROR', [{ path: 'from', message: 'Must not be after to' }]],
    ]);
    expect(store.state.jobs.size).toBe(0);
  });

  it('stops reading once it has read for 10 minutes, well before the runner’s 15, and says how far it read', async () => {
    const { commit, deps, store, tenant, dataSet } = await world();
    for (let i = 0; i < 5; i++) commit({ [`m${i}`]: { n: i } });
    // Each file takes 4 minutes to read: after three (12 minutes) it reads no further.
    let clock = Date.parse('2026-11-21T10:00:00.000Z');
    const slow = {
      ...deps,
      now: () => clock,
      envelopeFiles: async (source: DataSet) =>
        (await deps.envelopeFiles(source)).map((file) => ({
          ...file,
          readEnvelopes: async () => {
            clock += 4 * 60_000;
            return file.readEnvelopes();
          },
        })),
    };
    const job = await startQuery(store, platformAdmin, {
      tenant_id: tenant.tenant_id,
      query: matchingNothing(dataSet.data_set_id),
    });
    const outcome = await runQuery(slow, readJob(queryJobPayload, job), running);
    expect([outcome.result.truncated, outcome.result.truncated_by]).toEqual([true, 'scan']);
    expect(outcome.result.scanned).toEqual({ files: 3, files_total: 5, bytes: 3, bytes_total: 5 });
    expect(outcome).toMatchObject({ rows_in: 3, rows_out: 0, rows_filtered: 3 });
  });

  it('reads every file of a data set within its bounds, and says it was not truncated', async () => {
    const { commit, deps, store, tenant, dataSet } = await world();
    for (let i = 0; i < 5; i++) commit({ [`m${i}`]: { n: i } }, null, 0.75 * 1024 ** 3);
    const job = await startQuery(store, platformAdmin, {
      tenant_id: tenant.tenant_id,
      query: matchingNothing(dataSet.data_set_id),
    });
    const outcome = await runQuery(deps, readJob(queryJobPayload, job), running);
    expect([outcome.result.truncated, outcome.result.truncated_by]).toEqual([false, null]);
    expect(outcome.result.scanned).toEqual({
      files: 5,
      files_total: 5,
      bytes: 3.75 * 1024 ** 3,
      bytes_total: 3.75 * 1024 ** 3,
    });
    expect(outcome).toMatchObject({ rows_in: 5, rows_out: 0, rows_filtered: 5 });
  });
});

describe.concurrent('runs on new data', () => {
  /** A deployed pipeline with on_new_data, and a runner that runs its queued automatic jobs to the end. */
  async function watching() {
    const w = await world();
    const created = await createPipeline(w.store, platformAdmin, {
      tenant_id: w.tenant.tenant_id,
      name: 'live',
      definition: { ...w.definition(), on_new_data: true },
    });
    const pipelineId = created.pipeline_id;
    await deployPipeline(w.store, platformAdmin, pipelineId, undefined);
    const automaticJobs = () =>
      [...w.store.state.jobs.values()].filter((job) => (job.payload as { trigger?: string }).trigger === 'on_new_data');
    const runQueued = async (finish: 'Succeeded' | 'Failed' = 'Succeeded') => {
      for (const job of automaticJobs().filter((candidate) => candidate.status === 'Queued')) {
        const at = new Date().toISOString();
        const outcome =
          finish === 'Succeeded' ? await runPipeline(w.deps, readJob(pipelineJobPayload, job), running) : {};
        await w.store.moveJob(
          job.job_id,
          ['Queued'],
          { status: finish, started_at: at, completed_at: at, ...outcome },
          new Date(),
        );
      }
    };
    return {
      ...w,
      pipelineId,
      automaticJobs,
      runQueued,
      tick: () => startRunsOnNewData({ ...w.store, warn: () => undefined }),
    };
  }

  it('queues one run per pipeline when its source commits, none while a run waits, and none while quiet', async () => {
    const { commit, tick, automaticJobs, runQueued, output, store, pipelineId } = await watching();
    // Deployed onto an empty source: nothing to run, and the source settles.
    expect(await tick()).toBe(0);
    expect(await store.sourcesWithNewRows()).toEqual([]);

    commit({ m1: { action: 'a' } });
    expect(await tick()).toBe(1);
    // One run at a time: rows committed while it waits are read by that run.
    commit({ m2: { action: 'b' } });
    expect(await tick()).toBe(0);
    expect(automaticJobs()).toMatchObject([
      {
        job_type: 'Pipeline',
        status: 'Queued',
        partition_key: pipelineId,
        payload: { parameters: null, trigger: 'on_new_data' },
        source: { pipeline_id: pipelineId, pipeline_version: 1 },
      },
    ]);
    expect(store.state.dispatched.map((entry) => entry.jobId)).toEqual([automaticJobs()[0]?.job_id]);

    await runQueued();
    expect([...output.keys()]).toEqual(['m1', 'm2']);
    expect(await tick()).toBe(0);
    expect(await store.sourcesWithNewRows()).toEqual([]);

    commit({ m3: { action: 'c' } });
    expect(await tick()).toBe(1);
    await runQueued();
    expect([...output.keys()]).toEqual(['m1', 'm2', 'm3']);
    expect(automaticJobs().map((job) => [job.status, job.rows_in])).toEqual([
      ['Succeeded', 2],
      ['Succeeded', 1],
    ]);
  });

  it('runs a deployed pipeline over the rows already there, and never twice for one schedule race', async () => {
    const w = await world();
    w.commit({ m1: { action: 'a' } });
    const created = await createPipeline(w.store, platformAdmin, {
      tenant_id: w.tenant.tenant_id,
      name: 'late',
      definition: { ...w.definition(), on_new_data: true },
    });
    await deployPipeline(w.store, platformAdmin, created.pipeline_id, undefined);
    const deps = { ...w.store, warn: () => undefined };
    expect(await Promise.all([startRunsOnNewData(deps), startRunsOnNewData(deps)])).toEqual(
      expect.arrayContaining([1, 0]),
    );
    expect(w.store.state.jobs.size).toBe(1);
  });

  it('stops while the pipeline is disabled, and cancels a queued automatic run it finds disabled', async () => {
    const { commit, tick, automaticJobs, store, pipelineId, deps, output } = await watching();
    commit({ m1: { action: 'a' } });
    expect(await tick()).toBe(1);
    await setPipelineStatus(store, platformAdmin, pipelineId, 'Disabled');
    const [queued] = automaticJobs();
    await expect(runPipeline(deps, readJob(pipelineJobPayload, queued as Job), running)).rejects.toBeInstanceOf(
      JobCancelled,
    );
    expect(output.size).toBe(0);
    await store.moveJob(queued?.job_id as string, ['Queued'], { status: 'Cancelled' }, new Date());

    commit({ m2: { action: 'b' } });
    expect(await tick()).toBe(0);
    expect(await store.sourcesWithNewRows()).toEqual([]);
    await setPipelineStatus(store, platformAdmin, pipelineId, 'Active');
    commit({ m3: { action: 'c' } });
    expect(await tick()).toBe(1);
  });

  it('does not repeat a failed run for the same rows, and runs again when more arrive', async () => {
    const { commit, tick, runQueued, automaticJobs } = await watching();
    commit({ m1: { action: 'a' } });
    expect(await tick()).toBe(1);
    await runQueued('Failed');
    expect(await tick()).toBe(0);
    commit({ m2: { action: 'b' } });
    expect(await tick()).toBe(1);
    await runQueued();
    expect(automaticJobs().map((job) => [job.status, job.rows_in])).toEqual([
      ['Failed', null],
      ['Succeeded', 2],
    ]);
  });

  it('queues the runs of the other pipelines watching a source when one of them cannot be looked at', async () => {
    const w = await world();
    const pipelineIds: string[] = [];
    for (const name of ['first', 'second', 'third']) {
      const { pipeline_id } = await createPipeline(w.store, platformAdmin, {
        tenant_id: w.tenant.tenant_id,
        name,
        definition: { ...w.definition(), on_new_data: true },
      });
      await deployPipeline(w.store, platformAdmin, pipeline_id, undefined);
      pipelineIds.push(pipeline_id);
    }
    w.commit({ m1: { action: 'a' } });
    // The watcher looked at first is the one whose item cannot be written (as one over DynamoDB's 400 KB).
    const [broken] = await w.store.watchersOf(w.dataSet.data_set_id);
    const warned: unknown[] = [];
    const deps = {
      ...w.store,
      recordAutomaticRun: async (...args: Parameters<typeof w.store.recordAutomaticRun>) => {
        if (args[0] === broken) throw new Error('Item size has exceeded the maximum allowed size');
        return w.store.recordAutomaticRun(...args);
      },
      warn: (_: string, fields: Record<string, unknown>) => warned.push(fields.pipeline_id),
    };
    await expect(startRunsOnNewData(deps)).rejects.toThrow(
      '1 pipeline watcher(s) or source(s) failed (2 run(s) queued)',
    );
    expect(warned).toEqual([broken]);
    const queuedFor = [...w.store.state.jobs.values()].map(
      (job) => (job.source as { pipeline_id: string }).pipeline_id,
    );
    expect(queuedFor.sort()).toEqual(pipelineIds.filter((id) => id !== broken).sort());
    // The source stays marked, so the next schedule run looks at the broken watcher again.
    expect((await w.store.sourcesWithNewRows()).map((source) => source.dataSetId)).toEqual([w.dataSet.data_set_id]);
  });

  it('stops watching a source once the deployed version no longer runs on new data', async () => {
    const { commit, tick, store, pipelineId, definition, dataSet } = await watching();
    await updateDefinition(store, platformAdmin, pipelineId, definition());
    await deployPipeline(store, platformAdmin, pipelineId, undefined);
    commit({ m1: { action: 'a' } });
    expect(await tick()).toBe(0);
    expect(await store.watchersOf(dataSet.data_set_id)).toEqual([]);
  });
});

describe.concurrent('suggestColumns', () => {
  it('proposes paths, names and the types every sampled value fits, from the newest payloads', async () => {
    const { commit, deps, dataSet } = await world();
    commit(
      {
        m1: '<order id="7"><total currency="EUR">7.50</total><paid>true</paid><at>2026-11-21T10:00:00Z</at></order>',
        m2: '<order id="8"><total currency="EUR">12</total><paid>false</paid><note>gift</note></order>',
      },
      'application/xml',
    );
    commit(
      { m3: { type: 'push', 'repo-name': 'x', n: 1, ratio: 1, dt: 'a', tags: ['a'], user: { LoginName: 'o' } } },
      'application/json',
    );
    commit({ m4: { type: 'issue', n: 2, ratio: 0.5, extra: null } }, 'application/json');
    commit({ m5: 'not json' }, 'application/json');

    const suggestion = await suggestColumns(deps, platformAdmin, dataSet.data_set_id, { format: 'auto' });
    expect(suggestion).toMatchObject({
      decode: { format: 'auto' },
      sampled_envelopes: 5,
      sampled_rows: 5,
      formats: { json: 3, xml: 2 },
      rows_rejected: 1,
      rejection_samples: [{ message_id: 'm5', reason: 'payload is not valid JSON' }],
      more_paths: 0,
    });
    expect(suggestion.columns.map((column) => [column.name, column.path, column.type, column.seen])).toEqual([
      ['type', '$.type', 'string', 2],
      ['n', '$.n', 'long', 2],
      ['ratio', '$.ratio', 'double', 2],
      ['repo_name', '$.repo-name', 'string', 1],
      ['dt_2', '$.dt', 'string', 1],
      ['tags', '$.tags', 'string', 1],
      ['login_name', '$.user.LoginName', 'string', 1],
      ['id', '$.order["@id"]', 'long', 2],
      ['currency', '$.order.total["@currency"]', 'string', 2],
      ['total', '$.order.total["#text"]', 'double', 2],
      ['paid', '$.order.paid', 'boolean', 2],
      ['note', '$.order.note', 'string', 1],
      ['at', '$.order.at', 'timestamp', 1],
    ]);

    const limited = await suggestColumns(deps, platformAdmin, dataSet.data_set_id, { format: 'json', sample: 2 });
    expect([limited.sampled_envelopes, limited.rows_rejected, limited.columns.length]).toEqual([2, 1, 3]);
  });

  it('answers 404 for a data set of another tenant', async () => {
    const { deps, dataSet } = await world();
    await expect(
      suggestColumns(deps, tenantPrincipal('another-tenant', 'TenantAdmin'), dataSet.data_set_id, {}),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
