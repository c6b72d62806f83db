import { describe, expect, it } from 'vitest';
import type { Job, JobStatus } from '#shared/domain/jobs/model.ts';
import { type JobWork, type RunnerDeps, runJob, sweepExpiredLeases } from '#shared/domain/jobs/run-job.ts';

function job(status: JobStatus = 'Queued'): Job {
  return {
    job_id: 'j1',
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

/** In-memory ports; `onMove` lets a test act (e.g. cancel) between two moves of the runner. */
function memory(initial: Job, options: { leaseHeld?: boolean; onMove?: (to: JobStatus) => void } = {}) {
  const state = {
    job: { ...initial },
    offers: [] as [string, number][],
    lease: options.leaseHeld
      ? { jobId: 'other', expires: Date.now() + 60_000, waiting: [] as string[] }
      : (null as null | { jobId: string; expires: number; waiting: string[] }),
  };
  const deps: RunnerDeps = {
    leaseMs: 3000,
    createJob: async () => undefined,
    getJob: async () => ({ ...state.job }),
    listJobsByTenant: async () => ({ items: [], nextCursor: null }),
    listAllJobs: async () => ({ items: [], nextCursor: null }),
    async moveJob(_, from, changes) {
      if (!from.includes(state.job.status)) return null;
      state.job = { ...state.job, ...changes };
      if (changes.status) options.onMove?.(changes.status);
      return { ...state.job };
    },
    async requestCancel() {
      if (state.job.status !== 'Running' || state.job.committing_at) return null;
      state.job.cancel_requested_at = 'now';
      return { ...state.job };
    },
    async beginCommit() {
      if (state.job.status !== 'Running' || state.job.cancel_requested_at) return false;
      state.job.committing_at = 'now';
      return true;
    },
    async dispatchJob(jobId, delay = 0) {
      state.offers.push([jobId, delay]);
    },
    async acquireLease(_, jobId) {
      if (state.lease && state.lease.jobId !== jobId && state.lease.expires > Date.now()) return false;
      state.lease = { jobId, expires: Date.now() + 3000, waiting: [] };
      return true;
    },
    async renewLease() {
      return true;
    },
    async waitBehindLease(_, jobId) {
      if (!state.lease) return false;
      state.lease.waiting.push(jobId);
      return true;
    },
    async releaseLease(_, jobId) {
      if (state.lease?.jobId !== jobId) return [];
      const { waiting } = state.lease;
      state.lease = null;
      return waiting;
    },
    async expiredLeases() {
      return state.lease && state.lease.expires < Date.now()
        ? [{ partitionKey: 'p1', jobId: state.lease.jobId, expiresAt: 'then' }]
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
        'j1',
        'r1',
        succeeds,
      ),
    ).toBe('succeeded');
    expect(seen).toEqual(['Dispatched', 'Running', 'Succeeded']);
    expect(state.job).toMatchObject({ status: 'Succeeded', runner_id: 'r1', rows_out: 2 });
    expect(state.lease).toBeNull();
  });

  it('waits behind another job of its partition, offered again later should that one never release', async () => {
    const { deps, state } = memory(job(), { leaseHeld: true });
    expect(await runJob(deps, 'j1', 'r1', succeeds)).toBe('partition busy');
    expect(state.job.status).toBe('Queued');
    expect(state.lease?.waiting).toEqual(['j1']);
    expect(state.offers).toEqual([['j1', 10]]);
  });

  it('offers the jobs that waited behind it at once when it ends', async () => {
    const { deps, state } = memory(job());
    const work: JobWork = async (running, control) => {
      await deps.waitBehindLease(running.partition_key, 'j2');
      await deps.waitBehindLease(running.partition_key, 'j3');
      return succeeds(running, control);
    };
    expect(await runJob(deps, 'j1', 'r1', work)).toBe('succeeded');
    expect(state.offers).toEqual([
      ['j2', 0],
      ['j3', 0],
    ]);
    expect(state.lease).toBeNull();
  });

  it('is offered again at once when the holder released between its try and its wait', async () => {
    const { deps, state } = memory(job(), { leaseHeld: true });
    const released = { ...deps, waitBehindLease: async () => false };
    expect(await runJob(released, 'j1', 'r1', succeeds)).toBe('partition busy');
    expect(state.offers).toEqual([['j1', 0]]);
  });

  it('does nothing for a job that is no longer Queued (a repeated message)', async () => {
    for (const status of ['Running', 'Succeeded', 'Cancelled'] as const) {
      const { deps, state } = memory(job(status));
      expect(await runJob(deps, 'j1', 'r1', succeeds)).toBe('stale');
      expect(state.job.status).toBe(status);
    }
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
      await runJob(deps, 'j1', 'r1', async () => {
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
    expect(await runJob(deps, 'j1', 'r1', work)).toBe('cancelled');
    expect(state.job).toMatchObject({ status: 'Cancelled', committing_at: null });
  });

  it('records a failure with its reason', async () => {
    const { deps, state } = memory(job());
    expect(
      await runJob(deps, 'j1', 'r1', async () => {
        throw new Error('source vanished');
      }),
    ).toBe('failed');
    expect(state.job).toMatchObject({ status: 'Failed', error_message: 'source vanished' });
  });

  it('fails jobs whose lease expired and frees their partition', async () => {
    const { deps, state } = memory(job('Running'));
    state.lease = { jobId: 'j1', expires: Date.now() - 1, waiting: [] };
    expect(await sweepExpiredLeases(deps)).toBe(1);
    expect(state.job.status).toBe('Failed');
    expect(state.job.error_message).toMatch(/lease expired/);
    expect(state.lease).toBeNull();
  });
});
