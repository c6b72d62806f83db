/**
 * DynamoDB's limits against DynamoDB Local, in a table of this file's own (no other test or the
 * service's schedules touch its partitions): reads that span more than one page of 1 MB, and the
 * largest values the API accepts, written as the items that keep them (DynamoDB Local refuses an item
 * over 400 KB, or nested past 32 levels, as AWS does).
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { asStored } from '#shared/adapters/dynamo/stored-items.ts';
import { newJob } from '#shared/domain/jobs/new-job.ts';
import { createPipelineBody, triggerBody } from '#shared/http/schemas/pipelines.ts';
import { useOwnTable } from '../support/own-table.ts';

let tables: typeof import('#shared/adapters/dynamo/table.ts');
let pipelines: typeof import('#shared/adapters/dynamo/pipelines.ts');
let jobs: typeof import('#shared/adapters/dynamo/jobs.ts');
let stores: typeof import('#shared/adapters/dynamo/object-stores.ts');
const tableName = useOwnTable('limits');

beforeAll(async () => {
  tables = await import('#shared/adapters/dynamo/table.ts');
  pipelines = await import('#shared/adapters/dynamo/pipelines.ts');
  jobs = await import('#shared/adapters/dynamo/jobs.ts');
  stores = await import('#shared/adapters/dynamo/object-stores.ts');
});

/** Items of about 60 KB each: 17 of them fill a page of 1 MB. */
const filler = () => 'x'.repeat(60_000);
const put = (items: Record<string, unknown>[]) => tables.batchWriteAll(items.map((Item) => ({ PutRequest: { Item } })));
const itemsOf = (partition: string) => tables.queryAll({ partition }, asStored);

describe('reads past the first page of 1 MB', () => {
  it('deletes every version of a pipeline', async () => {
    const pipelineId = randomUUID();
    await put([
      { ...pipelines.pipelineKeys.pipeline(pipelineId), entity: 'Pipeline' },
      ...Array.from({ length: 24 }, (_, i) => ({
        ...pipelines.pipelineKeys.version(pipelineId, i + 1),
        entity: 'DeployedPipelineVersion',
        filler: filler(),
      })),
    ]);
    expect((await itemsOf(`PIPELINE#${pipelineId}`)).length).toBe(25);
    await pipelines.deletePipeline(pipelineId);
    expect(await itemsOf(`PIPELINE#${pipelineId}`)).toEqual([]);
  });

  it('counts every object store of a tenant', async () => {
    const tenantId = randomUUID();
    await put(
      Array.from({ length: 20 }, () => ({
        ...stores.objectStoreKeys.store(tenantId, randomUUID()),
        entity: 'ObjectStore',
        options_sealed: filler(),
      })),
    );
    expect(await stores.countObjectStores(tenantId)).toBe(20);
  });

  it('finds every expired job lease, past more than 1 MB of leases', async () => {
    const now = Date.now();
    const lease = (partitionKey: string, expiresAt: number) => ({
      ...jobs.jobKeys.lease(partitionKey),
      entity: 'JobLease',
      job_id: `job-${partitionKey}`,
      runner_id: 'runner',
      expires_at_ms: expiresAt,
      filler: filler(),
    });
    // AWS limits a page before its filter, DynamoDB Local after it: more than 1 MB of expired leases, then live ones.
    const expired = Array.from({ length: 20 }, (_, i) => lease(`expired-${String(i).padStart(2, '0')}`, now - 1_000));
    await put([...expired, ...Array.from({ length: 5 }, (_, i) => lease(`live-${i}`, now + 600_000))]);
    const found = await jobs.leases.expiredLeases(new Date(now));
    expect(found.map((entry) => entry.partitionKey)).toEqual(expired.map((entry) => entry.sk));
    expect(new Set(found.map((entry) => entry.runnerId))).toEqual(new Set(['runner']));
  });

  it('keeps a lease to the runner that took it: the same job under another runner neither takes nor frees it', async () => {
    const partition = `p-${randomUUID()}`;
    const now = new Date();
    const { leases } = jobs;
    const holder = async () => (await leases.leaseHolder(partition))?.jobId ?? null;
    expect(await leases.acquireLease(partition, 'k', 'r1', 60_000, now)).toBe(true);
    // A second message of k, taken by another runner while r1 runs it.
    expect(await leases.acquireLease(partition, 'k', 'r2', 60_000, now)).toBe(false);
    expect([await leases.releaseLease(partition, 'k', 'r2'), await holder()]).toEqual([[], 'k']);
    // r1 again (a message it repeats) keeps it, and frees it.
    expect(await leases.acquireLease(partition, 'k', 'r1', 60_000, now)).toBe(true);
    expect(await leases.waitBehindLease(partition, 'l')).toBe(true);
    expect([await leases.releaseLease(partition, 'k', 'r1'), await holder()]).toEqual([['l'], null]);
  });
});

describe('the offers of jobs', () => {
  it('numbers each new offer of a Queued job, and finds the ones whose latest offer went unanswered', async () => {
    const now = new Date();
    const { offers, jobs: records, jobKeys } = jobs;
    const job = (type: 'Pipeline' | 'Query') =>
      newJob({ tenant_id: randomUUID(), job_type: type, payload: null, source: null }, now);
    const [waiting, running] = [job('Pipeline'), job('Query')];
    await records.createJob(waiting);
    await records.createJob(running);
    await records.moveJob(running.job_id, ['Queued'], { status: 'Running' }, now);
    // A job written before offers were numbered (no offer, not listed), and a listing whose job write failed.
    const legacy = job('Query');
    await tables.db.send(
      new PutCommand({ TableName: tableName, Item: { ...jobKeys.job(legacy.job_id), entity: 'Job', ...legacy } }),
    );
    const unwritten = randomUUID();
    await put([{ ...jobKeys.queuedJob(unwritten), entity: 'QueuedJob', queued_at_ms: now.getTime() - 1 }]);

    expect(await offers.latestOffer(waiting.job_id)).toBe(0);
    expect(await offers.latestOffer(randomUUID())).toBeNull();
    // A runner's delayed offer only while the offer it answered is still the latest; a release's always.
    expect(await offers.newOffer(waiting.job_id, now, 1)).toBeNull();
    expect(await offers.newOffer(waiting.job_id, now, 0)).toBe(1);
    expect(await offers.newOffer(waiting.job_id, now, 0)).toBeNull();
    expect(await offers.newOffer(waiting.job_id, now)).toBe(2);
    expect(await offers.latestOffer(waiting.job_id)).toBe(2);
    expect(await offers.newOffer(running.job_id, now)).toBeNull();
    expect(await offers.newOffer(legacy.job_id, now, 0)).toBe(1);

    expect(await offers.unansweredOffers(now)).toEqual([]);
    const later = new Date(now.getTime() + 1);
    expect(await offers.unansweredOffers(later)).toEqual([{ jobId: waiting.job_id, offer: 2 }]);
    // The listings of the running job and of the job never written are forgotten on the way.
    expect((await itemsOf(jobKeys.queued)).map((item) => item.sk)).toEqual([waiting.job_id]);
  });
});

describe('the largest values the API accepts', () => {
  /** Nested `levels` arrays deep around `inner`. */
  const nested = (levels: number, inner: unknown): unknown => (levels === 0 ? inner : [nested(levels - 1, inner)]);
  /** Characters of 3 bytes of UTF-8, as many as fit in `bytes` bytes of JSON. */
  const wide = (bytes: number) => '€'.repeat(Math.floor(bytes / 3));

  it('are stored: a pipeline and its deployed version, and a run with its parameters', async () => {
    const now = new Date();
    const body = createPipelineBody.parse({
      name: 'largest',
      definition: {
        source: { data_set_id: randomUUID() },
        decode: { format: 'json' },
        where: { path: '$.type', equals: nested(16, wide(4_096 - 40)) },
        columns: Array.from({ length: 200 }, (_, i) => ({
          name: `column_${i}`,
          path: `$["${wide(235)}"]`,
          type: 'string',
        })),
        output: { name: wide(200) },
      },
    });
    expect(Buffer.byteLength(JSON.stringify(body.definition))).toBeGreaterThan(60_000);
    const pipelineId = randomUUID();
    const definition = body.definition ?? null;
    await pipelines.createPipeline({
      pipeline_id: pipelineId,
      tenant_id: randomUUID(),
      name: body.name,
      definition,
      status: 'Active',
      working_set_id: randomUUID(),
      working_version: 1,
      deployed_version: 0,
      deployed_at: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    if (!definition) throw new Error('The definition was not kept');
    await pipelines.deployVersion(
      { pipeline_id: pipelineId, version: 1, definition, deployed_at: now.toISOString() },
      now,
    );
    expect((await pipelines.getPipeline(pipelineId))?.definition).toEqual(definition);
    expect((await pipelines.getDeployedVersion(pipelineId, 1))?.definition).toEqual(definition);

    const { parameters } = triggerBody.parse({ parameters: { note: nested(15, wide(16_384 - 60)) } });
    const job = newJob(
      { tenant_id: randomUUID(), job_type: 'Pipeline', payload: { parameters, trigger: 'api' }, source: null },
      now,
    );
    await jobs.jobs.createJob(job);
    expect((await jobs.jobs.getJob(job.job_id))?.payload).toEqual({ parameters, trigger: 'api' });
  });

  it('one past its bound is refused before anything is written', () => {
    const refused = triggerBody.safeParse({ parameters: { note: wide(16_384) } });
    expect(refused.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['parameters']);
  });

  it('DynamoDB itself refuses what the bounds keep out: an item over 400 KB', async () => {
    await expect(
      tables.db.send(new PutCommand({ TableName: tableName, Item: { pk: 'X', sk: 'X', blob: 'x'.repeat(410_000) } })),
    ).rejects.toThrow('Item size has exceeded the maximum allowed size');
  });
});
