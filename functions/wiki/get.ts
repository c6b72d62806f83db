import { wikiStore } from '#shared/adapters/repositories/wiki.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { readDocument } from '#shared/domain/wiki/use-cases.ts';
import { ok } from '#shared/http/responses.ts';
import { wikiRoutes } from '#shared/routes/wiki.ts';

export const handler = apiHandler(wikiRoutes, 'GET /api/wiki-documents/{path+}', async ({ principal, params, query }) =>
  ok(await readDocument(wikiStore, principal, params.path, query.tenant_id)),
);
