import { dataSetFileStore } from '#shared/adapters/repositories/data-set-files.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { config } from '#shared/config.ts';
import { readTableProperties } from '#shared/domain/datasets/table-properties.ts';
import { tablePropertyRules } from '#shared/domain/datasets/table-settings.ts';
import { ok } from '#shared/http/responses.ts';
import { dataSetRoutes } from '#shared/routes/data-sets.ts';

const deps = {
  ...dataSetFileStore,
  rules: tablePropertyRules,
  defaultFreshnessMs: config.tableFreshnessMs(),
  defaultDataRetentionMs: config.dataRetentionMs(),
};

export const handler = apiHandler(
  dataSetRoutes,
  'GET /api/data-sets/{data_set_id}/table-properties',
  async ({ principal, params }) => ok(await readTableProperties(deps, principal, params.data_set_id)),
);
