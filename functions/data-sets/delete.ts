import { jobs, leases, offers } from '#shared/adapters/dynamo/jobs.ts';
import { dataSetFileStore } from '#shared/adapters/repositories/data-set-files.ts';
import { dispatchJob } from '#shared/adapters/sqs/jobs-queue.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { deleteDataSet } from '#shared/domain/datasets/use-cases.ts';
import { holdTableForRequest, queueDataSetDeletion } from '#shared/domain/jobs/maintenance-jobs.ts';
import { accepted, noContent } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

const deps = {
  ...dataSetFileStore,
  queueDeletion: async (dataSet: Parameters<typeof queueDataSetDeletion>[1]) =>
    (await queueDataSetDeletion({ ...jobs, dispatchJob }, dataSet)).job_id,
  holdTable: (dataSetId: string) => holdTableForRequest({ ...leases, ...offers, dispatchJob }, dataSetId),
};

export const handler = apiHandler(
  dataSetRoutes,
  'DELETE /api/data-sets/{data_set_id}',
  async ({ principal, params }) => {
    const deletion = await deleteDataSet(deps, principal, params.data_set_id);
    return deletion.deleted ? noContent() : accepted({ job_id: deletion.jobId });
  },
);
