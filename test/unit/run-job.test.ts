import { describe, expect, it } from 'vitest';
import { maintenanceAfterStopped, optimizePayload } from '#shared/domain/jobs/maintenance-jobs.ts';
import type { Job, JobStatus } from '#shared/domain/jobs/model.ts';
import {
  JobFailure,
  type JobWork,
  leaseLapsedFailure,
  type RunnerDeps,
  readJobField,
  rowlessOutcome,
  runJob,
  sweepExpiredLeases,
} from '#shared/domain/jobs/run-job.ts';
import { pipelineJobPayload } from '#shared/domain/pipelines/pipeline-runs.ts';

function job(status: JobStatus = 'Queued', jobId = 'j1'): Job {
  return {
    job_id: jobId,
    tenant_id: 't',
    job_type: 'Pipeline',
    status,
    partition_key: 'p1',
    payload: null,
    source: null,
    runner_id: null,
    error_message: null,
    rows_in: null,
    rows_out: null,
    rows_rejected: null,
    rows_filtered: null,
    rejection_samples: [],
    cancel_requested_at: null,
    committing_at: null,
    created_at: 'c',
    dispatched_at: null,
    started_at: null,
    completed_at: null,
    cancelled_at: null,
    updated_at: 'c',
  };
}

/** The clock of these tests: leases are compared with it, never with the machine's. */
const now = new Date('2026-11-21T10:00:00.000Z');
const at = (iso: string) => new Date(iso).getTime();

type Lease = { jobId: string; runner: string; expires: number; waiting: string[] };

/**
 * In-memory ports; `onMove` lets a test act (e.g. cancel) between two moves of the runner. The job run is j1
 * (`state.job`); `others` are further jobs of its partition.
 */
function memory(initial: Job, options: { leaseHeld?: boolean; onMove?: (to: JobStatus) => void; others?: Job[] } = {}) {
  const jobs = new Map([initial, ...(options.others ?? [])].map((one) => [one.job_id, { ...one }]));
  const state = {
    get job() {
      return jobs.get('j1') as Job;
    },
    set job(value: Job) {
      jobs.set('j1', value);
    },
    jobs,
    offers: [] as [string, number][],
    /** Jobs taken off the sweep's list of Queued jobs, in order. */
    forgotten: [] as string[],
    lease: options.leaseHeld
      ? ({ jobId: 'other', runner: 'r-other', expires: now.getTime() + 60_000, waiting: [] } as Lease | null)
      : (null as Lease | null),
  };
  /** Each job's latest offer number (none yet: 0, its first). */
  const latest = new Map<string, number>();
  const deps: RunnerDeps = {
    leaseMs: 3000,
    now: () => now,
    createJob: async () => undefined,
    getJob: async (jobId) => {
      const found = jobs.get(jobId);
      return found ? { ...found } : null;
    },
    listJobsByTenant: async () => ({ items: [], nextCursor: null }),
    listAllJobs: async () => ({ items: [], nextCursor: null }),
    async moveJob(jobId, from, changes) {
      const current = jobs.get(jobId);
      if (!current || !from.includes(current.status)) return null;
      const moved = { ...current, ...changes };
      jobs.set(jobId, moved);
      if (changes.status) options.onMove?.(changes.status);
      return { ...moved };
    },
    async requestCancel() {
      if (state.job.status !== 'Running' || state.job.committing_at) return null;
      state.job.cancel_requested_at = 'now';
      return { ...state.job };
    },
    async beginCommit() {
      if (state.job.status !== 'Running' || state.job.cancel_requested_at) return false;
      state.job.committing_at = now.toISOString();
      return true;
    },
    async dispatchJob(jobId, _offer, delay = 0) {
      state.offers.push([jobId, delay]);
    },
    async latestOffer(jobId) {
      return jobs.has(jobId) ? (latest.get(jobId) ?? 0) : null;
    },
    async newOffer(jobId, _, after) {
      const current = latest.get(jobId) ?? 0;
      if (jobs.get(jobId)?.status !== 'Queued' || (after !== undefined && after !== current)) return null;
      latest.set(jobId, current + 1);
      return current + 1;
    },
    unansweredOffers: async () => [],
    async forgetQueued(jobId) {
      state.forgotten.push(jobId);
    },
    // As the table's conditions: free, or this job's under this runner; or taken over from an expired holder.
    async acquireLease(_, jobId, runner, ttlMs, at, replacing) {
      const free = !state.lease || (state.lease.jobId === jobId && state.lease.runner === runner);
      const takenOver = state.lease?.jobId === replacing && (state.lease?.expires ?? 0) < at.getTime();
      if (!free && !takenOver) return false;
      state.lease = { jobId, runner, expires: at.getTime() + ttlMs, waiting: [] };
      return true;
    },
    async leaseHolder() {
      return state.lease ? { jobId: state.lease.jobId, expiresAt: new Date(state.lease.expires) } : null;
    },
    async renewLease() {
      return true;
    },
    async waitBehindLease(_, jobId) {
      if (!state.lease) return false;
      state.lease.waiting.push(jobId);
      return true;
    },
    async releaseLease(_, jobId, runner) {
      if (state.lease?.jobId !== jobId || state.lease.runner !== runner) return [];
      const { waiting } = state.lease;
      state.lease = null;
      return waiting;
    },
    async expiredLeases(at) {
      return state.lease && state.lease.expires < at.getTime()
        ? [
            {
              partitionKey: 'p1',
              jobId: state.lease.jobId,
              runnerId: state.lease.runner,
              expiresAt: new Date(state.lease.expires).toISOString(),
            },
          ]
        : [];
    },
  };
  return { deps, state };
}

const succeeds: JobWork = async (_, control) => {
  await control.beginCommit();
  return { rows_in: 2, rows_out: 2, rows_rejected: 0, rows_filtered: 0, rejection_samples: [] };
};

describe('running a job', () => {
  it('moves Queued → Dispatched → Running → Succeeded and frees the partition', async () => {
    const { deps, state } = memory(job());
    const seen: JobStatus[] = [];
    expect(
      await runJob(
        {
          ...deps,
          moveJob: async (...args) => {
            const moved = await deps.moveJob(...args);
            if (moved) seen.push(moved.status);
            return moved;
          },
        },
        { jobId: 'j1', offer: 0 },
        'r1',
        succeeds,
      ),
    ).toBe('succeeded');
    expect(seen).toEqual(['Dispatched', 'Running', 'Succeeded']);
    expect(state.job).toMatchObject({ status: 'Succeeded', runner_id: 'r1', rows_out: 2 });
    expect(state.lease).toBeNull();
    // Out of Queued, off the sweep's list: a sweep reads the jobs still Queued.
    expect(state.forgotten).toEqual(['j1']);
  });

  it('records completed_at when its work has ended, after its commit began', async () => {
    const { deps, state } = memory(job());
    let clock = now;
    const ticking: RunnerDeps = {
      ...deps,
      now: () => clock,
      beginCommit: async (jobId, at) => {
        const begun = await deps.beginCommit(jobId, at);
        state.job.committing_at = at.toISOString();
        return begun;
      },
    };
    const work: JobWork = async (_, control) => {
      clock = new Date('2026-11-21T10:00:05.000Z');
      await control.beginCommit();
      clock = new Date('2026-11-21T10:00:09.000Z');
      return { rows_in: 2, rows_out: 2, rows_rejected: 0, rows_filtered: 0, rejection_samples: [] };
    };
    expect(await runJob(ticking, { jobId: 'j1', offer: 0 }, 'r1', work)).toBe('succeeded');
    expect(state.job).toMatchObject({
      started_at: '2026-11-21T10:00:00.000Z',
      committing_at: '2026-11-21T10:00:05.000Z',
      completed_at: '2026-11-21T10:00:09.000Z',
    });
  });

  it('waits behind another job of its partition, offered again later should that one never release', async () => {
    const { deps, state } = memory(job(), { leaseHeld: true });
    expect(await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).toBe('partition busy');
    expect(state.job.status).toBe('Queued');
    // Still Queued: still on the sweep's list, should its next offer be lost.
    expect(state.forgotten).toEqual([]);
    expect(state.lease?.waiting).toEqual(['j1']);
    expect(state.offers).toEqual([['j1', 10]]);
  });

  it('offers the jobs that waited behind it at once when it ends', async () => {
    const { deps, state } = memory(job(), { others: [job('Queued', 'j2'), job('Queued', 'j3')] });
    const work: JobWork = async (running, control) => {
      await deps.waitBehindLease(running.partition_key, 'j2');
      await deps.waitBehindLease(running.partition_key, 'j3');
      return succeeds(running, control);
    };
    expect(await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', work)).toBe('succeeded');
    expect(state.offers).toEqual([
      ['j2', 0],
      ['j3', 0],
    ]);
    expect(state.lease).toBeNull();
  });

  it('is offered again at once when the holder released between its try and its wait', async () => {
    const { deps, state } = memory(job(), { leaseHeld: true });
    const released = { ...deps, waitBehindLease: async () => false };
    expect(await runJob(released, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).toBe('partition busy');
    expect(state.offers).toEqual([['j1', 0]]);
  });

  it('keeps its lease when a second message of it reaches another runner while it runs', async () => {
    // j1 waited behind j0, so it was offered twice (once at j0's release, once after the wait): r1 and r2 both take it.
    const { deps, state } = memory(job(), { others: [job('Queued', 'j2')] });
    let second: Promise<string> | undefined;
    // r2 read j1 while it was still Queued, before r1 moved it.
    const staleRead = { ...deps, getJob: async (id: string) => (id === 'j1' ? job() : deps.getJob(id)) };
    const outcome = await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', async (running, control) => {
      second = runJob(staleRead, { jobId: 'j1', offer: 0 }, 'r2', succeeds);
      expect(await second).toBe('partition busy');
      // The partition is still j1's: another job of it waits rather than run beside it.
      expect(await runJob(deps, { jobId: 'j2', offer: 0 }, 'r3', succeeds)).toBe('partition busy');
      expect(state.lease).toMatchObject({ jobId: 'j1', runner: 'r1' });
      return succeeds(running, control);
    });
    expect({ outcome, status: state.job.status, j2: state.jobs.get('j2')?.status, lease: state.lease }).toEqual({
      outcome: 'succeeded',
      status: 'Succeeded',
      j2: 'Queued',
      lease: null,
    });
  });

  it('does nothing for a job that is no longer Queued (a repeated message)', async () => {
    for (const status of ['Running', 'Succeeded', 'Cancelled'] as const) {
      const { deps, state } = memory(job(status));
      expect(await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).toBe('stale');
      expect(state.job.status).toBe(status);
    }
  });

  it('ends Cancelled, not Succeeded, when a cancel was answered while work that never commits ran', async () => {
    const { deps, state } = memory(job());
    // Nothing to commit (no new rows, nothing to compact); the cancel arrives before the work ends.
    const outcome = await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', async () => {
      expect(await deps.requestCancel('j1', now)).not.toBeNull();
      return { rows_in: 0, rows_out: 0, rows_rejected: 0, rows_filtered: 0, rejection_samples: [] };
    });
    expect({ outcome, status: state.job.status, lease: state.lease }).toEqual({
      outcome: 'cancelled',
      status: 'Cancelled',
      lease: null,
    });
  });

  it('stops a job cancelled while Dispatched before it runs', async () => {
    const holder: { state?: { job: Job } } = {};
    const { deps, state } = memory(job(), {
      onMove: (to) => {
        if (to === 'Dispatched' && holder.state) holder.state.job.status = 'Cancelled';
      },
    });
    holder.state = state;
    let ran = false;
    expect(
      await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', async () => {
        ran = true;
        return { rows_in: 0, rows_out: 0, rows_rejected: 0, rows_filtered: 0, rejection_samples: [] };
      }),
    ).toBe('cancelled before it ran');
    expect(ran).toBe(false);
    expect(state.job.status).toBe('Cancelled');
    expect(state.lease).toBeNull();
  });

  it('refuses the commit after a cancel was requested and ends Cancelled', async () => {
    const { deps, state } = memory(job());
    const work: JobWork = async (_, control) => {
      await deps.requestCancel('j1', new Date());
      await control.beginCommit();
      throw new Error('unreachable');
    };
    expect(await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', work)).toBe('cancelled');
    expect(state.job).toMatchObject({ status: 'Cancelled', committing_at: null });
  });

  it('records a failure its owner can act on with its reason', async () => {
    const { deps, state } = memory(job());
    expect(
      await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', async () => {
        throw new JobFailure('The source data set no longer exists');
      }),
    ).toBe('failed');
    expect(state.job).toMatchObject({ status: 'Failed', error_message: 'The source data set no longer exists' });
  });

  it('records any other error under a stable category, never its text, and reports the error itself', async () => {
    const reported: unknown[] = [];
    const throttled = new Error(
      'ProvisionedThroughputExceededException: arn:aws:dynamodb:eu-west-1:123456789012:table/x',
    );
    for (const [work, message] of [
      [
        async () => {
          throw throttled;
        },
        'An internal error stopped the job before its commit; trigger the job again',
      ],
      [
        async (_: Job, control: Parameters<JobWork>[1]) => {
          await control.beginCommit();
          throw throttled;
        },
        'An internal error stopped the job after it began its commit: what it wrote may stand, and running the job again does not write it twice',
      ],
    ] as [JobWork, string][]) {
      const { deps, state } = memory(job());
      const report = { ...deps, reportError: (_: string, error: unknown) => reported.push(error) };
      expect(await runJob(report, { jobId: 'j1', offer: 0 }, 'r1', work)).toBe('failed');
      expect(state.job).toMatchObject({ status: 'Failed', error_message: message });
      expect(state.lease).toBeNull();
    }
    expect(reported).toEqual([throttled, throttled]);
  });

  it('hands a stopped maintenance run back to the schedule: its table due again in an hour', async () => {
    const optimize: Job = {
      ...job('Running'),
      job_type: 'Optimize',
      partition_key: 'optimize:ds-1',
      payload: { data_set_id: 'ds-1', min_files: null, trigger: 'schedule' },
    };
    const { deps, state } = memory(optimize);
    state.lease = { jobId: 'j1', runner: 'r0', expires: at('2026-11-21T09:59:00.000Z'), waiting: [] };
    const retried: string[] = [];
    const retryMaintenance = async (dataSetId: string, tenantId: string, next: Date) => {
      retried.push(`${dataSetId} ${tenantId} ${next.toISOString()}`);
    };
    const afterStopped = (stopped: Job, now: Date) => maintenanceAfterStopped({ retryMaintenance }, stopped, now);
    expect(await sweepExpiredLeases({ ...deps, afterStopped })).toBe(1);
    // A pipeline run stopped the same way leaves nothing to the schedule.
    const pipeline = memory(job('Running'));
    pipeline.state.lease = { jobId: 'j1', runner: 'r0', expires: at('2026-11-21T09:59:00.000Z'), waiting: [] };
    expect(await sweepExpiredLeases({ ...pipeline.deps, afterStopped })).toBe(1);
    expect(retried).toEqual(['ds-1 t 2026-11-21T11:00:00.000Z']);
  });

  it('takes its own move whose answer was lost (the client tried it again) as made, and runs the job', async () => {
    for (const lost of ['Dispatched', 'Running'] as JobStatus[]) {
      const { deps, state } = memory(job());
      // The move is applied, its answer lost; the client's second try finds the status moved and is refused.
      let dropped = false;
      const lossy: RunnerDeps = {
        ...deps,
        async moveJob(jobId, from, changes, at) {
          const moved = await deps.moveJob(jobId, from, changes, at);
          if (changes.status === lost && !dropped) {
            dropped = true;
            return null;
          }
          return moved;
        },
      };
      expect({
        lost,
        outcome: await runJob(lossy, { jobId: 'j1', offer: 0 }, 'r1', async () => rowlessOutcome({})),
      }).toEqual({
        lost,
        outcome: 'succeeded',
      });
      expect(state.job.status).toBe('Succeeded');
    }
  });

  it('fails a job whose lease lapsed under a slow runner, saying so; ends one whose cancel was answered Cancelled', async () => {
    const { deps, state } = memory(job());
    const lapsed: RunnerDeps = { ...deps, leaseMs: 30, renewLease: async () => false };
    const outcome = await runJob(lapsed, { jobId: 'j1', offer: 0 }, 'r1', async (_, control) => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      await control.throwIfCancelled();
      return rowlessOutcome({});
    });
    expect({ outcome, status: state.job.status, error: state.job.error_message }).toEqual({
      outcome: 'failed',
      status: 'Failed',
      error: leaseLapsedFailure,
    });
    // A runner that stopped after the job's cancel was answered 204, before its commit.
    const stopped = memory({ ...job('Running'), cancel_requested_at: '2026-11-21T09:58:00.000Z' });
    stopped.state.lease = { jobId: 'j1', runner: 'r0', expires: at('2026-11-21T09:59:00.000Z'), waiting: [] };
    expect(await sweepExpiredLeases(stopped.deps)).toBe(1);
    expect(stopped.state.job).toMatchObject({ status: 'Cancelled', error_message: null });
  });

  it('fails jobs whose lease expired and frees their partition', async () => {
    const { deps, state } = memory(job('Running'));
    state.lease = { jobId: 'j1', runner: 'r0', expires: at('2026-11-21T09:59:00.000Z'), waiting: [] };
    expect(await sweepExpiredLeases(deps)).toBe(1);
    expect(state.job).toMatchObject({
      status: 'Failed',
      error_message:
        'The runner stopped responding (its lease expired at 2026-11-21T09:59:00.000Z); trigger the job again',
      completed_at: '2026-11-21T10:00:00.000Z',
    });
    expect(state.lease).toBeNull();
  });
});

describe('a job whose runner stopped', () => {
  it('fails before another job of its partition takes over its expired lease', async () => {
    // j0 timed out while Running; its lease lapsed at 09:59 and j1, waiting behind it, is offered again first.
    const { deps, state } = memory(job(), { others: [job('Running', 'j0')] });
    state.lease = { jobId: 'j0', runner: 'r0', expires: at('2026-11-21T09:59:00.000Z'), waiting: ['j1'] };
    expect(await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).toBe('succeeded');
    expect(state.jobs.get('j0')).toMatchObject({
      status: 'Failed',
      error_message:
        'The runner stopped responding (its lease expired at 2026-11-21T09:59:00.000Z); trigger the job again',
      completed_at: '2026-11-21T10:00:00.000Z',
    });
    expect(state.job.status).toBe('Succeeded');
    expect(state.lease).toBeNull();
  });

  it('leaves a lease that has not expired to its holder', async () => {
    const { deps, state } = memory(job(), { others: [job('Running', 'j0')] });
    state.lease = { jobId: 'j0', runner: 'r0', expires: at('2026-11-21T10:00:30.000Z'), waiting: [] };
    expect(await runJob(deps, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).toBe('partition busy');
    expect([state.jobs.get('j0')?.status, state.job.status, state.lease?.jobId]).toEqual(['Running', 'Queued', 'j0']);
  });

  it('fails even when the runner taking over stops before the lease is its own: the lease still names the job', async () => {
    const { deps, state } = memory(job(), { others: [job('Dispatched', 'j0')] });
    state.lease = { jobId: 'j0', runner: 'r0', expires: at('2026-11-21T09:59:00.000Z'), waiting: [] };
    const stops = {
      ...deps,
      acquireLease: async (...args: Parameters<RunnerDeps['acquireLease']>) => {
        if (args[5]) throw new Error('the runner was stopped');
        return deps.acquireLease(...args);
      },
    };
    await expect(runJob(stops, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).rejects.toThrow('the runner was stopped');
    expect(state.jobs.get('j0')?.status).toBe('Failed');
    expect(state.lease).toMatchObject({ jobId: 'j0' });
    // Offered again, j1 takes the lease and runs.
    expect(await runJob(deps, { jobId: 'j1', offer: 0 }, 'r2', succeeds)).toBe('succeeded');
  });

  it('tries its final move again when the write fails after the work committed', async () => {
    const { deps, state } = memory(job());
    let failures = 1;
    const flaky = {
      ...deps,
      moveJob: async (...args: Parameters<RunnerDeps['moveJob']>) => {
        if (args[2].status === 'Succeeded' && failures-- > 0) throw new Error('ThrottlingException');
        return deps.moveJob(...args);
      },
    };
    expect(await runJob(flaky, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).toBe('succeeded');
    expect(state.job).toMatchObject({ status: 'Succeeded', rows_out: 2, error_message: null });
    expect(state.lease).toBeNull();
  });

  it('keeps its lease when the final move keeps failing, and the sweeper says it had begun its commit', async () => {
    const { deps, state } = memory(job());
    const down = {
      ...deps,
      moveJob: async (...args: Parameters<RunnerDeps['moveJob']>) => {
        if (args[1].includes('Running')) throw new Error('ThrottlingException');
        return deps.moveJob(...args);
      },
    };
    await expect(runJob(down, { jobId: 'j1', offer: 0 }, 'r1', succeeds)).rejects.toThrow('ThrottlingException');
    // The job is still Running and the lease still its own: it lapses at 10:00:03, and the sweeper sees it.
    expect(state.job).toMatchObject({ status: 'Running', committing_at: '2026-11-21T10:00:00.000Z' });
    expect(state.lease).toMatchObject({ jobId: 'j1', expires: at('2026-11-21T10:00:03.000Z') });
    const later = new Date('2026-11-21T10:01:00.000Z');
    expect(await sweepExpiredLeases({ ...deps, now: () => later })).toBe(1);
    expect(state.job).toMatchObject({
      status: 'Failed',
      error_message:
        'The runner stopped responding after it began its commit at 2026-11-21T10:00:00.000Z (its lease expired at 2026-11-21T10:00:03.000Z): what it wrote may stand, and running the job again does not write it twice',
    });
    expect(state.lease).toBeNull();
  });
});

describe("A job's payload, read with the schema its type declares", () => {
  it('gives back a payload that fits, and fails one that does not as an internal fault naming the field', () => {
    // Prepare
    const optimize = {
      ...job(),
      job_type: 'Optimize' as const,
      payload: { data_set_id: 'd1', min_files: null, trigger: 'schedule' },
    };
    const broken = { ...optimize, payload: { data_set_id: 'd1', min_files: 'two', trigger: 'schedule' } };
    const old = { ...job(), payload: null };

    // Act, Assess
    expect(readJobField(optimizePayload, optimize, 'payload')).toEqual({
      data_set_id: 'd1',
      min_files: null,
      trigger: 'schedule',
    });
    expect(readJobField(pipelineJobPayload, old, 'payload')).toBeNull();
    expect(() => readJobField(optimizePayload, broken, 'payload')).toThrow(
      /^The Optimize job's payload does not fit its type: min_files/,
    );
    expect(() => readJobField(optimizePayload, broken, 'payload')).not.toThrow(JobFailure);
  });
});
