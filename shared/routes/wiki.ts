/** Routes — Wiki documents. Part of the route table (shared/routes.ts). */
import {
  listWikiQuery,
  listWikiResponse,
  putWikiBody,
  wikiDocument,
  wikiPathParams,
  wikiScopeQuery,
} from '../http/schemas/wiki.ts';
import { listing, type RouteSpec, table, tableWrite } from './spec.ts';

export const wikiRoutes = {
  'GET /api/wiki-documents': {
    entry: 'functions/wiki/list.ts',
    auth: 'apiKey',
    permission: 'wiki.read',
    summary: 'List document paths, sorted, in the global scope or a tenant’s, optionally under a prefix',
    tag: 'Wiki',
    query: listWikiQuery,
    responses: { 200: listWikiResponse },
    access: listing,
  },
  'GET /api/wiki-documents/{path+}': {
    entry: 'functions/wiki/get.ts',
    auth: 'apiKey',
    permission: 'wiki.read',
    summary: 'Get a document by path (which may contain /)',
    tag: 'Wiki',
    params: wikiPathParams,
    query: wikiScopeQuery,
    responses: { 200: wikiDocument },
    access: table,
  },
  'PUT /api/wiki-documents/{path+}': {
    entry: 'functions/wiki/put.ts',
    auth: 'apiKey',
    permission: 'wiki.write',
    summary: 'Create (201) or replace (200) a document; content up to 256 KiB',
    tag: 'Wiki',
    params: wikiPathParams,
    query: wikiScopeQuery,
    body: putWikiBody,
    responses: { 201: wikiDocument, 200: wikiDocument },
    access: tableWrite,
  },
  'DELETE /api/wiki-documents/{path+}': {
    entry: 'functions/wiki/delete.ts',
    auth: 'apiKey',
    permission: 'wiki.write',
    summary: 'Delete a document',
    tag: 'Wiki',
    params: wikiPathParams,
    query: wikiScopeQuery,
    responses: { 204: null },
    access: { ...tableWrite, deletesItems: true },
  },
} as const satisfies Record<string, RouteSpec>;
