import { wikiStore } from '#shared/adapters/repositories/wiki.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { listDocuments } from '#shared/domain/wiki/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { wikiRoutes } from '#shared/routes/wiki.ts';

export const handler = apiHandler(wikiRoutes, 'GET /api/wiki-documents', async ({ principal, query }) => {
  const page = await listDocuments(wikiStore, principal, query);
  return ok({ paths: page.items, next_cursor: page.nextCursor });
});
