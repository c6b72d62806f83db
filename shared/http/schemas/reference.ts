import * as z from 'zod';

/** The outline of an OpenAPI 3.1 document (its full shape is the OpenAPI specification's). */
export const openApiDocumentBody = z
  .looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.looseObject({}),
  })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document: https://spec.openapis.org/oas/v3.1.0' });
