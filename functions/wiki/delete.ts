import { wikiStore } from '#shared/adapters/repositories/wiki.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { removeDocument } from '#shared/domain/wiki/use-cases.ts';
import { noContent } from '#shared/http/responses.ts';
import { wikiRoutes } from '#shared/routes/wiki.ts';

export const handler = apiHandler(
  wikiRoutes,
  'DELETE /api/wiki-documents/{path+}',
  async ({ principal, params, query }) => {
    await removeDocument(wikiStore, principal, params.path, query.tenant_id);
    return noContent();
  },
);
