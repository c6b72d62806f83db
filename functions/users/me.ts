import { apiHandler } from '#shared/api-handler.ts';
import { grants } from '#shared/domain/authorization.ts';
import { ok } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(userRoutes, 'GET /api/me', async ({ principal }) =>
  ok({
    role: principal.role,
    tenant_id: principal.kind === 'tenant' ? principal.tenantId : null,
    user_id: principal.userId,
    api_key_id: principal.apiKeyId,
    permissions: [...grants[principal.role]],
  }),
);
