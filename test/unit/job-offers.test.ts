/**
 * Offering jobs to the runners, in process through in-memory ports (test/support/memory.ts): a job
 * waiting behind a busy partition keeps one live message however many releases it waits through, a
 * message of an earlier offer is dropped, and a job whose offer was never sent is offered again by
 * the sweep.
 */
import { describe, expect, it } from 'vitest';
import { newJob } from '#shared/domain/jobs/new-job.ts';
import { offerUnansweredJobs } from '#shared/domain/jobs/offers.ts';
import { type JobWork, type RunnerDeps, runJob } from '#shared/domain/jobs/run-job.ts';
import { triggerPipeline } from '#shared/domain/pipelines/pipeline-runs.ts';
import { deployPipeline } from '#shared/domain/pipelines/use-cases.ts';
import { platformAdmin } from '../support/memory.ts';
import { now, withPipeline } from '../support/use-case-setups.ts';

const succeeds: JobWork = async (_, control) => {
  await control.beginCommit();
  return { rows_in: 0, rows_out: 0, rows_rejected: 0, rows_filtered: 0, rejection_samples: [] };
};

async function deployed() {
  const setup = await withPipeline();
  await deployPipeline(setup.store, platformAdmin, setup.pipelineId, undefined);
  const runner: RunnerDeps = { ...setup.store, leaseMs: 60_000, now: () => now };
  return { ...setup, runner };
}

describe('offering jobs', () => {
  it('keeps one live message per waiting job, however many releases it waits through', async () => {
    const { store, runner, pipelineId } = await deployed();
    const runs = 30;
    for (let i = 0; i < runs; i++) await triggerPipeline(store, platformAdmin, pipelineId, null, now);
    const queue = store.state.dispatched;
    let peak = 0;
    let mostLiveOfOneJob = 0;
    const outcomes: string[] = [];
    const deliver = async () => {
      const message = queue.shift();
      if (!message) return;
      outcomes.push(await runJob(runner, message, 'runner', work));
      peak = Math.max(peak, queue.length);
      const live = new Map<string, number>();
      for (const sent of queue)
        if (store.state.offers.get(sent.jobId)?.offer === sent.offer)
          live.set(sent.jobId, (live.get(sent.jobId) ?? 0) + 1);
      mostLiveOfOneJob = Math.max(mostLiveOfOneJob, ...live.values());
    };
    // Each run lasts three rounds of the queue: every message sent meanwhile reaches a runner, which finds the
    // partition busy.
    const work: JobWork = async (job, control) => {
      for (let round = 0; round < 3; round++) for (let n = queue.length; n > 0; n--) await deliver();
      return succeeds(job, control);
    };
    while (queue.length > 0) await deliver();

    const statuses = [...store.state.jobs.values()].map((job) => job.status);
    expect({ statuses: new Set(statuses), count: statuses.length, mostLiveOfOneJob }).toEqual({
      statuses: new Set(['Succeeded']),
      count: runs,
      mostLiveOfOneJob: 1,
    });
    // A waiting job holds its delayed offer and, for a moment after a release, the one that replaced it.
    expect(peak).toBeLessThanOrEqual(2 * runs);
    expect(outcomes.filter((outcome) => outcome === 'succeeded')).toHaveLength(runs);
    expect(outcomes).toContain('stale offer');
  });

  it('drops a message whose offer is not the job’s latest', async () => {
    const { store, runner, pipelineId } = await deployed();
    const job = await triggerPipeline(store, platformAdmin, pipelineId, null, now);
    // A release offered it again: the message sent at its creation (offer 0) is stale.
    expect(await store.newOffer(job.job_id, now)).toBe(1);
    expect(await runJob(runner, { jobId: job.job_id, offer: 0 }, 'r1', succeeds)).toBe('stale offer');
    expect({ status: store.state.jobs.get(job.job_id)?.status, leases: store.leases.size }).toEqual({
      status: 'Queued',
      leases: 0,
    });
    expect(store.state.dispatched).toEqual([{ jobId: job.job_id, offer: 0, delaySeconds: 0 }]);
    expect(await runJob(runner, { jobId: job.job_id, offer: 1 }, 'r1', succeeds)).toBe('succeeded');
  });

  it('offers again, once, a Queued job whose offer was never sent, past the bound', async () => {
    const { store, runner, pipelineId, tenantId } = await deployed();
    // The queue failed, and so did the write that would have failed the job: it stays Queued.
    const down = {
      ...store,
      dispatchJob: async () => {
        throw new Error('SQS did not answer');
      },
      moveJob: async () => {
        throw new Error('DynamoDB did not answer');
      },
    };
    await expect(triggerPipeline(down, platformAdmin, pipelineId, null, now)).rejects.toThrow('SQS did not answer');
    // The process stopped between writing a job and sending its offer.
    const orphan = newJob({ tenant_id: tenantId, job_type: 'Query', payload: null, source: null }, now);
    await store.createJob(orphan);
    const queued = [...store.state.jobs.values()].map((job) => [job.job_id, job.status]);
    expect(queued.map(([, status]) => status)).toEqual(['Queued', 'Queued']);

    const counted: number[] = [];
    const countOfferedAgain = (jobs: number) => counted.push(jobs);
    const sweep = (at: string) => offerUnansweredJobs({ ...store, countOfferedAgain }, new Date(at));
    expect(await sweep('2026-11-21T10:14:59.000Z')).toBe(0);
    expect(await sweep('2026-11-21T10:16:00.000Z')).toBe(2);
    expect(await sweep('2026-11-21T10:17:00.000Z')).toBe(0);
    // The offers lost, counted once, when they were offered again.
    expect(counted).toEqual([2]);
    expect(store.state.dispatched).toEqual(
      queued.map(([jobId]) => ({ jobId: jobId as string, offer: 1, delaySeconds: 0 })),
    );
    for (const message of store.state.dispatched) await runJob(runner, message, 'r1', succeeds);
    expect([...store.state.jobs.values()].map((job) => job.status)).toEqual(['Succeeded', 'Succeeded']);
  });

  it('wakes every job waiting behind a release though the queue refuses one wake-up, and the run still succeeds', async () => {
    // Arrange: three runs of one pipeline; the first runs while the other two find the partition busy.
    const { store, runner, pipelineId } = await deployed();
    for (let i = 0; i < 3; i++) await triggerPipeline(store, platformAdmin, pipelineId, null, now);
    const sent = store.state.dispatched.splice(0);
    const [first, second, third] = [0, 1, 2].map((n) => sent[n] as Message) as [Message, Message, Message];
    let refuseNext = false;
    const flaky: RunnerDeps = {
      ...runner,
      dispatchJob: async (jobId, offer, delaySeconds) => {
        if (refuseNext) {
          refuseNext = false;
          throw new Error('SQS did not answer');
        }
        await store.dispatchJob(jobId, offer, delaySeconds);
      },
    };
    const work: JobWork = async (job, control) => {
      const waiting = [await runJob(flaky, second, 'r2', succeeds), await runJob(flaky, third, 'r3', succeeds)];
      expect(waiting).toEqual(['partition busy', 'partition busy']);
      store.state.dispatched.splice(0);
      refuseNext = true;
      return succeeds(job, control);
    };
    // Act: the first run ends; its release wakes the second (refused) and the third.
    const outcome = await runJob(flaky, first, 'r1', work);
    // Assert
    expect({ outcome, woken: store.state.dispatched }).toEqual({
      outcome: 'succeeded',
      woken: [{ jobId: third.jobId, offer: 2, delaySeconds: 0 }],
    });
  });
});

type Message = { jobId: string; offer: number };
