import { wikiStore } from '#shared/adapters/repositories.ts';
import { readDocument } from '#shared/domain/wiki/use-cases.ts';
import { apiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';

export const handler = apiHandler('GET /api/wiki-documents/{path+}', async ({ principal, params, query }) =>
  ok(await readDocument(wikiStore, principal, params.path, query.tenant_id)),
);
