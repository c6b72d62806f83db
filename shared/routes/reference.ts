/** Routes — This API's own description. Part of the route table (shared/routes.ts). */
import { openApiDocumentBody } from '../http/schemas/reference.ts';
import type { RouteSpec } from './spec.ts';

export const referenceRoutes = {
  'GET /openapi.json': {
    entry: 'functions/reference/openapi.ts',
    auth: 'public',
    summary: 'This API as an OpenAPI 3.1 document, generated from the route table and its schemas',
    tag: 'Reference',
    responses: { 200: openApiDocumentBody },
    access: {},
  },
  'GET /docs': {
    entry: 'functions/reference/docs.ts',
    auth: 'public',
    summary: 'The API reference as a readable page, built from the same document (no external assets)',
    tag: 'Reference',
    responses: { 200: { mediaType: 'text/html; charset=utf-8', description: 'The API reference page' } },
    access: {},
  },
} as const satisfies Record<string, RouteSpec>;
