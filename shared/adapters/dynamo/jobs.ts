/**
 * Jobs and the leases that keep the jobs of one partition from running at once.
 *   pk JOB#<job_id>   sk JOB                 the job
 *     gsi1pk TENANT#<tenant_id>#JOBS  gsi1sk <created_at>#<job_id>
 *     gsi2pk JOBS#<nn>                gsi2sk <created_at>#<job_id>   nn: the job's shard, 00-15 (sharded-lists.ts)
 *     offer, offered_at_ms: the number of its latest offer to the runners and when it was made (offers.ts)
 *   pk JOB_LEASES     sk <partition_key>     the lease of a partition (job id, runner, expiry, jobs waiting behind it)
 *   pk QUEUED_JOBS    sk <job_id>            a job written Queued, for the sweep of unanswered offers; forgotten
 *                                            by the runner that takes it out of Queued, else by the sweep
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type Job, type JobStatus, jobStatuses, jobTypes, type RejectionSample } from '../../domain/jobs/model.ts';
import type { JobFilters, JobOffers, JobRepository } from '../../domain/jobs/ports.ts';
import type { LeaseStore } from '../../domain/jobs/run-job.ts';
import { countQuietly } from '../metrics.ts';
import { queryShardedPage, shardKey } from './sharded-lists.ts';
import { itemReader, objectOf, orNull, shapeReader, stringSet } from './stored-items.ts';
import {
  batchGetAll,
  batchWriteAll,
  conditionHeld,
  db,
  isConditionFailure,
  queryAll,
  queryPage,
  setFieldsCommand,
  table,
} from './table.ts';

export const jobKeys = {
  job: (jobId: string) => ({ pk: `JOB#${jobId}`, sk: 'JOB' }),
  byTenant: (tenantId: string) => `TENANT#${tenantId}#JOBS`,
  /** The platform-wide list's key: each job is under one of its 16 shards, `JOBS#<nn>` (sharded-lists.ts). */
  all: 'JOBS',
  shard: (jobId: string) => shardKey(jobKeys.all, jobId),
  leases: 'JOB_LEASES',
  lease: (partitionKey: string) => ({ pk: jobKeys.leases, sk: partitionKey }),
  queued: 'QUEUED_JOBS',
  queuedJob: (jobId: string) => ({ pk: jobKeys.queued, sk: jobId }),
};

const toJob = /* @__PURE__ */ itemReader<Job>('Job', () => ({
  job_id: z.string(),
  tenant_id: z.string(),
  job_type: z.enum(jobTypes),
  status: z.enum(jobStatuses),
  partition_key: z.string(),
  payload: z.unknown().default(null),
  source: z.unknown().default(null),
  runner_id: orNull(z.string()),
  error_message: orNull(z.string()),
  rows_in: orNull(z.number()),
  rows_out: orNull(z.number()),
  rows_rejected: orNull(z.number()),
  rows_filtered: orNull(z.number()),
  rejection_samples: orNull(
    z.array(objectOf<RejectionSample>({ message_id: z.string(), reason: z.string() })),
  ).transform((samples) => samples ?? []),
  cancel_requested_at: orNull(z.string()),
  committing_at: orNull(z.string()),
  created_at: z.string(),
  dispatched_at: orNull(z.string()),
  started_at: orNull(z.string()),
  completed_at: orNull(z.string()),
  cancelled_at: orNull(z.string()),
  updated_at: z.string(),
}));

/** A lease as the expiry sweep reads it: its partition (the sort key), its job and when it lapses. */
const toLease = /* @__PURE__ */ shapeReader('JobLease', () => ({
  sk: z.string(),
  job_id: z.string(),
  runner_id: z.string(),
  expires_at_ms: z.number(),
}));
/** A job as the sweep of unanswered offers reads it: its status and its latest offer (none: offer 0, at creation). */
const toOffered = /* @__PURE__ */ shapeReader('Job', () => ({
  job_id: z.string(),
  status: z.enum(jobStatuses),
  created_at: z.string(),
  offer: z.number().optional(),
  offered_at_ms: z.number().optional(),
}));
const toQueuedEntry = /* @__PURE__ */ shapeReader('QueuedJob', () => ({ sk: z.string(), queued_at_ms: z.number() }));

/** A lease as its release hands it back: the jobs that queued behind it (a string set, absent when none). */
const toReleasedLease = /* @__PURE__ */ shapeReader('JobLease', () => ({ waiting_job_ids: stringSet().optional() }));

function filterOf(filters: JobFilters) {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filters.jobType) {
    clauses.push('#type = :type');
    names['#type'] = 'job_type';
    values[':type'] = filters.jobType;
  }
  if (filters.status) {
    clauses.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = filters.status;
  }
  return clauses.length > 0 ? { expression: clauses.join(' AND '), names, values } : undefined;
}

/** Every write of a job sets its shard: a job written before the shards leaves the legacy `JOBS` key on its next move. */
const shardOf = (jobId: string) => ({ gsi2pk: jobKeys.shard(jobId) });

export const jobs: JobRepository = {
  async createJob(job) {
    const order = `${job.created_at}#${job.job_id}`;
    const createdMs = Date.parse(job.created_at);
    // Listed for the sweep first: a Queued job whose first offer is never sent is offered again (offers.ts).
    if (job.status === 'Queued')
      await db.send(
        new PutCommand({
          TableName: table(),
          Item: { ...jobKeys.queuedJob(job.job_id), entity: 'QueuedJob', queued_at_ms: createdMs },
        }),
      );
    await db.send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...jobKeys.job(job.job_id),
          entity: 'Job',
          gsi1pk: jobKeys.byTenant(job.tenant_id),
          gsi1sk: order,
          gsi2pk: jobKeys.shard(job.job_id),
          gsi2sk: order,
          ...job,
          offer: 0,
          offered_at_ms: createdMs,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    await countQuietly('jobs', { status: job.status });
  },

  async getJob(jobId) {
    const result = await db.send(new GetCommand({ TableName: table(), Key: jobKeys.job(jobId), ConsistentRead: true }));
    return result.Item ? toJob(result.Item) : null;
  },

  async listJobsByTenant(tenantId, filters, page) {
    return queryPage(
      { index: 'gsi1', partition: jobKeys.byTenant(tenantId), filter: filterOf(filters), newestFirst: true },
      page,
      toJob,
    );
  },

  async listAllJobs(filters, page) {
    return queryShardedPage(
      { index: 'gsi2', base: jobKeys.all, filter: filterOf(filters), newestFirst: true },
      page,
      toJob,
    );
  },

  async moveJob(jobId, from, changes, now) {
    const statuses = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]));
    try {
      const result = await db.send(
        new UpdateCommand({
          ...setFieldsCommand(
            jobKeys.job(jobId),
            { ...changes, updated_at: now.toISOString(), ...shardOf(jobId) },
            {
              expression: `#current IN (${Object.keys(statuses).join(', ')})`,
              names: { '#current': 'status' },
              values: statuses,
            },
          ),
          ReturnValues: 'ALL_OLD',
        }),
      );
      const before = toJob(result.Attributes ?? {});
      const after = toJob({ ...result.Attributes, ...changes, updated_at: now.toISOString() });
      // Every move is counted by the one write that made it: the gauge of jobs by status stays exact.
      if (after.status !== before.status) {
        await Promise.all([
          countQuietly('jobs', { status: before.status }, -1),
          countQuietly('jobs', { status: after.status }),
        ]);
      }
      return after;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  },

  async requestCancel(jobId, now) {
    try {
      const result = await db.send(
        new UpdateCommand({
          ...setFieldsCommand(
            jobKeys.job(jobId),
            { cancel_requested_at: now.toISOString(), updated_at: now.toISOString(), ...shardOf(jobId) },
            {
              expression:
                '#current = :running AND (attribute_not_exists(committing_at) OR attribute_type(committing_at, :null))',
              names: { '#current': 'status' },
              values: { ':running': 'Running' satisfies JobStatus, ':null': 'NULL' },
            },
          ),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return toJob(result.Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  },

  async beginCommit(jobId, now) {
    return conditionHeld(
      db.send(
        new UpdateCommand(
          setFieldsCommand(
            jobKeys.job(jobId),
            { committing_at: now.toISOString(), ...shardOf(jobId) },
            {
              expression:
                '#current = :running AND (attribute_not_exists(cancel_requested_at) OR attribute_type(cancel_requested_at, :null))',
              names: { '#current': 'status' },
              values: { ':running': 'Running' satisfies JobStatus, ':null': 'NULL' },
            },
          ),
        ),
      ),
    );
  },
};

export const offers: JobOffers = {
  async latestOffer(jobId) {
    const result = await db.send(
      new GetCommand({
        TableName: table(),
        Key: jobKeys.job(jobId),
        ConsistentRead: true,
        ProjectionExpression: 'pk, offer',
      }),
    );
    if (!result.Item) return null;
    return typeof result.Item.offer === 'number' ? result.Item.offer : 0;
  },

  async newOffer(jobId, now, after) {
    // A job written before offers were numbered has none: its offer is 0.
    const latest =
      after === undefined
        ? ''
        : after === 0
          ? ' AND (offer = :after OR attribute_not_exists(offer))'
          : ' AND offer = :after';
    try {
      const result = await db.send(
        new UpdateCommand({
          TableName: table(),
          Key: jobKeys.job(jobId),
          UpdateExpression: 'SET offer = if_not_exists(offer, :zero) + :one, offered_at_ms = :now',
          ConditionExpression: `#status = :queued${latest}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':zero': 0,
            ':one': 1,
            ':now': now.getTime(),
            ':queued': 'Queued' satisfies JobStatus,
            ...(after === undefined ? {} : { ':after': after }),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return z.number().parse(result.Attributes?.offer);
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  },

  async forgetQueued(jobId) {
    // A failure leaves the entry to the sweep, which forgets every entry whose job has left Queued.
    await db.send(new DeleteCommand({ TableName: table(), Key: jobKeys.queuedJob(jobId) })).catch(() => undefined);
  },

  async unansweredOffers(before) {
    const entries = await queryAll(
      {
        partition: jobKeys.queued,
        filter: { expression: 'queued_at_ms < :before', values: { ':before': before.getTime() } },
      },
      toQueuedEntry,
    );
    const found = new Map(
      (
        await batchGetAll(
          entries.map((entry) => jobKeys.job(entry.sk)),
          { consistent: true },
        )
      )
        .map(toOffered)
        .map((job) => [job.job_id, job]),
    );
    const unanswered: { jobId: string; offer: number }[] = [];
    const left: string[] = [];
    for (const { sk: jobId } of entries) {
      const job = found.get(jobId);
      // No job past the bound: its write failed after its entry's. A job that left Queued never returns to it.
      if (job?.status !== 'Queued') left.push(jobId);
      else if ((job.offered_at_ms ?? Date.parse(job.created_at)) < before.getTime())
        unanswered.push({ jobId, offer: job.offer ?? 0 });
    }
    await batchWriteAll(left.map((jobId) => ({ DeleteRequest: { Key: jobKeys.queuedJob(jobId) } })));
    return unanswered;
  },
};

export const leases: LeaseStore = {
  async acquireLease(partitionKey, jobId, runnerId, ttlMs, now, replacing) {
    // Free, or already this job's under this runner; or, when named, held by the job whose runner stopped renewing it
    // (the runner that takes it over has ended that job first).
    const takeOver = replacing === undefined ? '' : ' OR (job_id = :replacing AND expires_at_ms < :now)';
    return conditionHeld(
      db.send(
        new PutCommand({
          TableName: table(),
          Item: {
            ...jobKeys.lease(partitionKey),
            entity: 'JobLease',
            job_id: jobId,
            runner_id: runnerId,
            expires_at_ms: now.getTime() + ttlMs,
          },
          ConditionExpression: `attribute_not_exists(pk) OR (job_id = :job AND runner_id = :runner)${takeOver}`,
          ExpressionAttributeValues: {
            ':job': jobId,
            ':runner': runnerId,
            ...(replacing === undefined ? {} : { ':replacing': replacing, ':now': now.getTime() }),
          },
        }),
      ),
    );
  },

  async leaseHolder(partitionKey) {
    const result = await db.send(
      new GetCommand({ TableName: table(), Key: jobKeys.lease(partitionKey), ConsistentRead: true }),
    );
    if (!result.Item) return null;
    const lease = toLease(result.Item);
    return { jobId: lease.job_id, expiresAt: new Date(lease.expires_at_ms) };
  },

  async renewLease(partitionKey, jobId, ttlMs, now) {
    return conditionHeld(
      db.send(
        new UpdateCommand({
          TableName: table(),
          Key: jobKeys.lease(partitionKey),
          UpdateExpression: 'SET expires_at_ms = :expires',
          ConditionExpression: 'job_id = :job AND expires_at_ms >= :now',
          ExpressionAttributeValues: { ':expires': now.getTime() + ttlMs, ':job': jobId, ':now': now.getTime() },
        }),
      ),
    );
  },

  async waitBehindLease(partitionKey, jobId) {
    return conditionHeld(
      db.send(
        new UpdateCommand({
          TableName: table(),
          Key: jobKeys.lease(partitionKey),
          UpdateExpression: 'ADD waiting_job_ids :job',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':job': new Set([jobId]) },
        }),
      ),
    );
  },

  async releaseLease(partitionKey, jobId, runnerId) {
    try {
      const released = await db.send(
        new DeleteCommand({
          TableName: table(),
          Key: jobKeys.lease(partitionKey),
          ConditionExpression: 'job_id = :job AND runner_id = :runner',
          ExpressionAttributeValues: { ':job': jobId, ':runner': runnerId },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return [...(toReleasedLease(released.Attributes ?? {}).waiting_job_ids ?? [])];
    } catch (error) {
      if (isConditionFailure(error)) return [];
      throw error;
    }
  },

  async expiredLeases(now) {
    // Every page of the partition: a filter applies after DynamoDB reads a page of at most 1 MB.
    const expired = await queryAll(
      {
        partition: jobKeys.leases,
        filter: { expression: 'expires_at_ms < :now', values: { ':now': now.getTime() } },
      },
      toLease,
    );
    return expired.map((lease) => ({
      partitionKey: lease.sk,
      jobId: lease.job_id,
      runnerId: lease.runner_id,
      expiresAt: new Date(lease.expires_at_ms).toISOString(),
    }));
  },
};
