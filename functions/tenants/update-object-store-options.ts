import { tenancy } from '#shared/adapters/repositories.ts';
import { updateObjectStoreOptions } from '#shared/domain/tenants/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler(
  'POST /api/tenants/{tenant_id}/update-object-store-options',
  async ({ principal, params, body }) => {
    await updateObjectStoreOptions(tenancy, principal, params.tenant_id, body);
    return noContent();
  },
);
