import { wikiStore } from '#shared/adapters/repositories/wiki.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { writeDocument } from '#shared/domain/wiki/use-cases.ts';
import { created, ok } from '#shared/http/responses.ts';
import { wikiRoutes } from '#shared/routes/wiki.ts';

export const handler = apiHandler(
  wikiRoutes,
  'PUT /api/wiki-documents/{path+}',
  async ({ principal, params, query, body }) => {
    const result = await writeDocument(wikiStore, principal, params.path, query.tenant_id, body.content);
    return result.created ? created(result.document) : ok(result.document);
  },
);
