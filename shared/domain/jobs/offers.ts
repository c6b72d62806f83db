/**
 * Offering a Queued job to the runners. A job is offered as it is created; again, after a delay, by a runner that
 * found its partition busy; again at once by the job that releases the partition; and by the sweep when its latest
 * offer went unanswered. Each new offer carries the next number, and a runner drops a message whose number is not
 * the job's latest: a job waiting through many releases keeps one live message, not one more per release.
 */
import type { JobOffers, JobQueue } from './ports.ts';

export type OfferDeps = Pick<JobOffers, 'newOffer'> & JobQueue;

/**
 * Offers a Queued job again (with `after`: only while that is still its latest offer). False when no offer was made:
 * the job is no longer Queued, or another offer, made meanwhile, is the live one.
 */
export async function offerAgain(
  deps: OfferDeps,
  jobId: string,
  now: Date,
  options: { delaySeconds?: number; after?: number } = {},
): Promise<boolean> {
  const offer = await deps.newOffer(jobId, now, options.after);
  if (offer === null) return false;
  await deps.dispatchJob(jobId, offer, options.delaySeconds ?? 0);
  return true;
}

/**
 * How long a Queued job's latest offer may go unanswered before the sweep offers it again. A live offer is answered
 * within seconds (a waiting job's is renewed every busyPartitionRetrySeconds) unless the runners are all busy: past a
 * runner's longest run (15 minutes), the offer was lost, or its send never happened (the process stopped, or the
 * queue failed, between writing the job and sending it).
 */
export const lostOfferMs = 15 * 60_000;

/**
 * The sweep: every Queued job whose latest offer went unanswered past lostOfferMs is offered again,
 * and counted (`countOfferedAgain`): an offer lost on the queue leaves a figure the operator sees.
 */
export async function offerUnansweredJobs(
  deps: Pick<JobOffers, 'unansweredOffers'> & OfferDeps & { countOfferedAgain(jobs: number): void },
  now: Date,
): Promise<number> {
  let offered = 0;
  for (const { jobId, offer } of await deps.unansweredOffers(new Date(now.getTime() - lostOfferMs)))
    if (await offerAgain(deps, jobId, now, { after: offer })) offered++;
  if (offered > 0) deps.countOfferedAgain(offered);
  return offered;
}
