/**
 * The platform-wide lists of jobs and pipelines against DynamoDB Local, in a table of this file's own:
 * their items are spread over 16 index partitions (JOBS#<nn>, PIPELINES#<nn>), an item written before
 * the shards (under the bare key) is still listed, in its place, until its next write moves it, and no
 * write puts anything under the bare key. The shard of each id is written out (sha256 of the id, its
 * first four bytes modulo 16, worked out with Python's hashlib).
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { asStored } from '#shared/adapters/dynamo/stored-items.ts';
import type { Job, JobType } from '#shared/domain/jobs/model.ts';
import { newJob } from '#shared/domain/jobs/new-job.ts';
import type { Pipeline } from '#shared/domain/pipelines/model.ts';
import { useOwnTable } from '../support/own-table.ts';

let tables: typeof import('#shared/adapters/dynamo/table.ts');
let pipelines: typeof import('#shared/adapters/dynamo/pipelines.ts');
let jobs: typeof import('#shared/adapters/dynamo/jobs.ts');
const tableName = useOwnTable('shards');

beforeAll(async () => {
  tables = await import('#shared/adapters/dynamo/table.ts');
  pipelines = await import('#shared/adapters/dynamo/pipelines.ts');
  jobs = await import('#shared/adapters/dynamo/jobs.ts');
});

const at = (minute: number, second = 0) =>
  `2026-01-01T00:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}.000Z`;

/** A new job, as the service makes one, with the id and creation time a test names. */
function job(jobId: string, createdAt: string, jobType: JobType = 'Pipeline'): Job {
  const made = newJob({ tenant_id: 'tenant-1', job_type: jobType, payload: null, source: null }, new Date(createdAt));
  return { ...made, job_id: jobId, partition_key: jobId };
}

function pipeline(pipelineId: string, createdAt: string): Pipeline {
  return {
    pipeline_id: pipelineId,
    tenant_id: 'tenant-1',
    name: pipelineId,
    definition: null,
    status: 'Active',
    working_set_id: `set-${pipelineId}`,
    working_version: 1,
    deployed_version: 0,
    deployed_at: null,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** The ids under one index partition, in sort-key order. */
async function underKey(partition: string, idOf: 'job_id' | 'pipeline_id') {
  const items = await tables.queryAll({ index: 'gsi2', partition }, asStored);
  return items.map((item) => item[idOf]);
}

/** Every page of a list, as the ids each page answered. */
async function pagesOf<T>(
  list: (page: { limit: number; cursor?: string }) => Promise<{ items: T[]; nextCursor: string | null }>,
  idOf: (item: T) => string,
) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await list({ limit: 3, ...(cursor ? { cursor } : {}) });
    pages.push(page.items.map(idOf));
    expect(page.nextCursor?.length ?? 0).toBeLessThanOrEqual(4096);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && pages.length < 20);
  return pages;
}

/** A job written before the shards: the whole item under the bare JOBS key, as every write used to put it. */
async function putLegacyJob(legacy: Job) {
  await tables.db.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        pk: `JOB#${legacy.job_id}`,
        sk: 'JOB',
        entity: 'Job',
        gsi1pk: `TENANT#${legacy.tenant_id}#JOBS`,
        gsi1sk: `${legacy.created_at}#${legacy.job_id}`,
        gsi2pk: 'JOBS',
        gsi2sk: `${legacy.created_at}#${legacy.job_id}`,
        ...legacy,
      },
    }),
  );
}

describe('the list of every job', () => {
  it('spreads jobs over shards, lists them newest first with the legacy one in its place, in pages of 3', async () => {
    // job-1 09, job-2 07, job-3 07, job-4 05, job-5 09, job-6 12, job-7 08, job-8 13; job-old would be 01.
    const types: JobType[] = ['Pipeline', 'Query', 'Pipeline', 'Query', 'Pipeline', 'Pipeline', 'Query', 'Pipeline'];
    for (const [i, type] of types.entries()) await jobs.jobs.createJob(job(`job-${i + 1}`, at(i + 1), type));
    await putLegacyJob(job('job-old', at(4, 30), 'Query'));

    expect(await underKey('JOBS#07', 'job_id')).toEqual(['job-2', 'job-3']);
    expect(await underKey('JOBS#09', 'job_id')).toEqual(['job-1', 'job-5']);
    expect(await underKey('JOBS#13', 'job_id')).toEqual(['job-8']);
    expect(await underKey('JOBS', 'job_id')).toEqual(['job-old']);

    expect(
      await pagesOf(
        (page) => jobs.jobs.listAllJobs({}, page),
        (item) => item.job_id,
      ),
    ).toEqual([
      ['job-8', 'job-7', 'job-6'],
      ['job-5', 'job-old', 'job-4'],
      ['job-3', 'job-2', 'job-1'],
    ]);
    expect(
      await pagesOf(
        (page) => jobs.jobs.listAllJobs({ jobType: 'Query' }, page),
        (item) => item.job_id,
      ),
    ).toEqual([['job-7', 'job-old', 'job-4'], ['job-2']]);
  });

  it('moves a legacy job to its shard on its next write, and no write puts a job under the bare key', async () => {
    const now = new Date(at(30));
    await jobs.jobs.createJob(job('job-9', at(9)));
    expect(await jobs.jobs.moveJob('job-9', ['Queued'], { status: 'Dispatched' }, now)).not.toBeNull();
    expect(await jobs.jobs.moveJob('job-9', ['Dispatched'], { status: 'Running' }, now)).not.toBeNull();
    expect(await jobs.jobs.beginCommit('job-9', now)).toBe(true);
    expect(await jobs.jobs.moveJob('job-9', ['Running'], { status: 'Succeeded' }, now)).not.toBeNull();
    expect(await jobs.jobs.moveJob('job-old', ['Queued'], { status: 'Dispatched' }, now)).not.toBeNull();
    await putLegacyJob({ ...job('job-cancel', at(10)), status: 'Running' });
    expect(await jobs.jobs.requestCancel('job-cancel', now)).not.toBeNull();
    await putLegacyJob({ ...job('job-commit', at(11)), status: 'Running' });
    expect(await jobs.jobs.beginCommit('job-commit', now)).toBe(true);

    expect(await underKey('JOBS', 'job_id')).toEqual([]);
    // job-9 15, job-cancel 06, job-commit 10, job-old 01.
    expect(await underKey('JOBS#15', 'job_id')).toEqual(['job-9']);
    expect(await underKey('JOBS#06', 'job_id')).toEqual(['job-cancel']);
    expect(await underKey('JOBS#10', 'job_id')).toEqual(['job-commit']);
    expect(await underKey('JOBS#01', 'job_id')).toEqual(['job-old']);
    expect((await jobs.jobs.listAllJobs({}, { limit: 1000 })).items.map((item) => item.job_id)).toEqual([
      'job-commit',
      'job-cancel',
      'job-9',
      'job-8',
      'job-7',
      'job-6',
      'job-5',
      'job-old',
      'job-4',
      'job-3',
      'job-2',
      'job-1',
    ]);
  });
});

describe('the list of every pipeline', () => {
  /** A pipeline written before the shards, under the bare PIPELINES key. */
  async function putLegacyPipeline(legacy: Pipeline) {
    await tables.db.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: `PIPELINE#${legacy.pipeline_id}`,
          sk: 'PIPELINE',
          entity: 'Pipeline',
          gsi1pk: 'TENANT#tenant-1#PIPELINES',
          gsi1sk: `${legacy.created_at}#${legacy.pipeline_id}`,
          gsi2pk: 'PIPELINES',
          gsi2sk: `${legacy.created_at}#${legacy.pipeline_id}`,
          ...legacy,
          output_data_set_id: null,
          checkpoint: null,
          automatic_run: null,
        },
      }),
    );
  }

  beforeAll(async () => {
    // pipe-1 10, pipe-2 14, pipe-3 05, pipe-4 09, pipe-5 12; pipe-old would be 13.
    for (const i of [1, 2, 3, 4, 5]) await pipelines.createPipeline(pipeline(`pipe-${i}`, at(i)));
    await putLegacyPipeline(pipeline('pipe-old', at(2, 30)));
  });

  it('lists every pipeline oldest first, the legacy one in its place, in pages of 3', async () => {
    expect(await underKey('PIPELINES#10', 'pipeline_id')).toEqual(['pipe-1']);
    expect(await underKey('PIPELINES', 'pipeline_id')).toEqual(['pipe-old']);
    expect(
      await pagesOf(
        (page) => pipelines.listAllPipelines(page),
        (item) => item.pipeline_id,
      ),
    ).toEqual([
      ['pipe-1', 'pipe-2', 'pipe-old'],
      ['pipe-3', 'pipe-4', 'pipe-5'],
    ]);
  });

  it('moves a legacy pipeline to its shard on its next write, and no write puts one under the bare key', async () => {
    const now = new Date(at(40));
    await pipelines.updatePipeline('pipe-old', 1, { name: 'renamed' }, now);
    await pipelines.updatePipeline('pipe-1', 1, { name: 'renamed' }, now);
    await pipelines.saveProgress(
      'pipe-2',
      { output_data_set_id: null, checkpoint: null },
      { output_data_set_id: 'out', checkpoint: null },
      now,
    );
    await pipelines.recordAutomaticRun('pipe-3', null, { job_id: 'job-1', source_version: 1, after: 0 });
    await putLegacyPipeline(pipeline('pipe-progress', at(6)));
    await pipelines.saveProgress(
      'pipe-progress',
      { output_data_set_id: null, checkpoint: null },
      { output_data_set_id: 'out', checkpoint: null },
      now,
    );
    await putLegacyPipeline(pipeline('pipe-run', at(7)));
    expect(await pipelines.recordAutomaticRun('pipe-run', null, { job_id: 'job-1', source_version: 1, after: 0 })).toBe(
      true,
    );

    expect(await underKey('PIPELINES', 'pipeline_id')).toEqual([]);
    // pipe-old 13, pipe-progress 08, pipe-run 11.
    expect(await underKey('PIPELINES#13', 'pipeline_id')).toEqual(['pipe-old']);
    expect(await underKey('PIPELINES#08', 'pipeline_id')).toEqual(['pipe-progress']);
    expect(await underKey('PIPELINES#11', 'pipeline_id')).toEqual(['pipe-run']);
    expect((await pipelines.listAllPipelines({ limit: 100 })).items.map((item) => item.pipeline_id)).toEqual([
      'pipe-1',
      'pipe-2',
      'pipe-old',
      'pipe-3',
      'pipe-4',
      'pipe-5',
      'pipe-progress',
      'pipe-run',
    ]);
  });
  it('is not continued by a cursor of the list of jobs', async () => {
    const page = await jobs.jobs.listAllJobs({}, { limit: 1 });
    if (!page.nextCursor) throw new Error('Expected more than one job');
    await expect(pipelines.listAllPipelines({ limit: 3, cursor: page.nextCursor })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
