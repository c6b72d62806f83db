import { pipelineStore } from '#shared/adapters/repositories/pipelines.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { startOptimize } from '#shared/domain/jobs/maintenance-jobs.ts';
import { accepted } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

const jobs = { ...pipelineStore, dispatchJob };

export const handler = apiHandler(
  dataSetRoutes,
  'POST /api/data-sets/{data_set_id}/optimize',
  async ({ principal, params }) =>
    accepted({ job_id: (await startOptimize(jobs, principal, params.data_set_id)).job_id }),
);
