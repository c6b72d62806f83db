import { wikiStore } from '#shared/adapters/repositories.ts';
import { removeDocument } from '#shared/domain/wiki/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { noContent } from '#shared/http/responses.ts';

export const handler = apiHandler('DELETE /api/wiki-documents/{path+}', async ({ principal, params, query }) => {
  await removeDocument(wikiStore, principal, params.path, query.tenant_id);
  return noContent();
});
