import { identity } from '#shared/adapters/repositories/identity.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { issueApiKey } from '#shared/domain/identity/api-keys.ts';
import { created } from '#shared/http/responses.ts';
import { userRoutes } from '#shared/routes/users.ts';

export const handler = apiHandler(
  userRoutes,
  'POST /api/users/{user_id}/api-keys',
  async ({ principal, params, body }) => {
    const { record, apiKey } = await issueApiKey(identity, principal, params.user_id, body.name);
    return created({
      api_key_id: record.api_key_id,
      api_key: apiKey,
      prefix: record.prefix,
      created_at: record.created_at,
    });
  },
);
