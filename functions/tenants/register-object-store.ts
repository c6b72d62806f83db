import { tenancy } from '#shared/adapters/repositories.ts';
import { registerObjectStore } from '#shared/domain/tenants/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { created } from '#shared/http/responses.ts';

export const handler = apiHandler(
  'POST /api/tenants/{tenant_id}/register-object-store',
  async ({ principal, params, body }) => {
    const store = await registerObjectStore(tenancy, principal, params.tenant_id, body);
    return created({ object_store_id: store.object_store_id });
  },
);
