import { wikiStore } from '#shared/adapters/repositories.ts';
import { listDocuments } from '#shared/domain/wiki/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/wiki-documents', async ({ principal, query }) => {
  const page = await listDocuments(wikiStore, principal, query);
  return ok({ paths: page.items, next_cursor: page.nextCursor });
});
