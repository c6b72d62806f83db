import { identity } from '#shared/adapters/repositories.ts';
import { linkExternalId } from '#shared/domain/identity/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler('POST /api/users/{user_id}/link-external-id', async ({ principal, params, body }) => {
  await linkExternalId(identity, principal, params.user_id, body.external_id);
  return noContent();
});
