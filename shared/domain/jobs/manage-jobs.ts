/** The jobs that exist, as the API shows them: one, a list, and cancelling one. */
import { notFound, refused } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import { effectiveTenantId, type Principal, requireTenantVisible } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import type { Tenant } from '../tenants/model.ts';
import { finishedStatuses, type Job, type JobStatus, type JobType } from './model.ts';
import type { JobRepository } from './ports.ts';

type Deps = JobRepository & { getTenant(tenantId: string): Promise<Tenant | null> };

export async function visibleJob(
  deps: Pick<JobRepository, 'getJob'>,
  principal: Principal,
  jobId: string,
): Promise<Job> {
  const job = await deps.getJob(jobId);
  if (!job) throw notFound('Job');
  requireTenantVisible(principal, job.tenant_id, 'Job');
  return job;
}

export async function listJobs(
  deps: JobRepository,
  principal: Principal,
  query: {
    tenant_id?: string | undefined;
    job_type?: JobType | undefined;
    status?: JobStatus | undefined;
  } & PageRequest,
): Promise<Page<Job>> {
  const tenantId = effectiveTenantId(principal, query.tenant_id);
  const filters = { jobType: query.job_type, status: query.status };
  return tenantId ? deps.listJobsByTenant(tenantId, filters, query) : deps.listAllJobs(filters, query);
}

/**
 * Cancel a job.
 *  - Queued or Dispatched: Cancelled at once.
 *  - Running: the runner is asked to stop; it does so before its commit, and the job becomes
 *    Cancelled. Once the runner has begun committing, it is too late: 422.
 *  - Finished: 422 JOB_NOT_CANCELLABLE.
 * Cancelling only stops work, so it is allowed during a tenant suspension.
 */
export async function cancelJob(deps: Deps, principal: Principal, jobId: string, now = new Date()): Promise<void> {
  const job = await visibleJob(deps, principal, jobId);
  await tenantFor(deps, principal, job.tenant_id, 'restrict');
  const at = now.toISOString();
  if (
    await deps.moveJob(
      jobId,
      ['Queued', 'Dispatched'],
      { status: 'Cancelled', cancelled_at: at, completed_at: at },
      now,
    )
  )
    return;
  if (await deps.requestCancel(jobId, now)) return;
  const current = await deps.getJob(jobId);
  if (current && !finishedStatuses.includes(current.status) && current.cancel_requested_at) return;
  throw refused('JOB_NOT_CANCELLABLE', `The job is ${current?.status ?? job.status} and can no longer be cancelled`);
}
