/**
 * Routes — the Iceberg REST catalog at /iceberg (CONTRACT §5a), read-only. Part of the route table
 * (shared/routes.ts). They follow the catalog's protocol: the API key as `Authorization: Bearer`,
 * errors in Iceberg's error model, and OAuth2's at the token endpoint.
 */
import {
  catalogConfig,
  catalogPathParams,
  listNamespacesQuery,
  listNamespacesResponse,
  listTablesQuery,
  listTablesResponse,
  loadCredentialsResult,
  loadTableQuery,
  loadTableResult,
  namespaceParams,
  namespaceResponse,
  tableParams,
  tokenForm,
  tokenResponse,
} from '../http/schemas/iceberg.ts';
import { type RouteSpec, table } from './spec.ts';

/**
 * What loading a table touches: the catalog's records, and the tenant's store, where loading brings
 * the table's Iceberg metadata up to date before it answers (it writes to the store and records the
 * sync), and the tenant's role vends credentials.
 */
const tableLoadAccess = { table: 'readWrite', tenantStores: 'readWrite', secretsKey: true } as const;

export const icebergRoutes = {
  'GET /iceberg/v1/config': {
    entry: 'functions/iceberg/config.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary: 'The catalog’s configuration: no defaults or overrides, and the endpoints it serves',
    tag: 'Iceberg catalog',
    responses: { 200: catalogConfig },
    access: table,
  },
  'POST /iceberg/v1/oauth/tokens': {
    entry: 'functions/iceberg/tokens.ts',
    auth: 'public',
    protocol: 'oauth2',
    summary:
      'OAuth2 client credentials: the client secret is a Tributary API key, and the access token is that key (it stops working the moment the key is revoked)',
    tag: 'Iceberg catalog',
    body: tokenForm,
    responses: { 200: tokenResponse },
    access: table,
  },
  'GET /iceberg/v1/namespaces': {
    entry: 'functions/iceberg/list-namespaces.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary: 'The namespaces the key sees: its tenant’s (a PlatformAdmin’s: every tenant’s), each named by its slug',
    tag: 'Iceberg catalog',
    query: listNamespacesQuery,
    responses: { 200: listNamespacesResponse },
    access: table,
  },
  'HEAD /iceberg/v1/namespaces': {
    entry: 'functions/iceberg/namespaces-exist.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary: 'Whether the key may list namespaces: 204 (the catalog answers, and the key reads data sets)',
    tag: 'Iceberg catalog',
    responses: { 204: null },
    access: table,
  },
  'GET /iceberg/v1/namespaces/{namespace}': {
    entry: 'functions/iceberg/get-namespace.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary: 'A namespace (a tenant, by its slug)',
    tag: 'Iceberg catalog',
    params: namespaceParams,
    responses: { 200: namespaceResponse },
    access: table,
  },
  'HEAD /iceberg/v1/namespaces/{namespace}': {
    entry: 'functions/iceberg/namespace-exists.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary: 'Whether the namespace exists for the key: 204, else 404',
    tag: 'Iceberg catalog',
    params: namespaceParams,
    responses: { 204: null },
    access: table,
  },
  'GET /iceberg/v1/namespaces/{namespace}/tables': {
    entry: 'functions/iceberg/list-tables.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary:
      'The namespace’s tables: its data sets that have a first commit and that Iceberg can express, each named by its data_set_id',
    tag: 'Iceberg catalog',
    params: namespaceParams,
    query: listTablesQuery,
    responses: { 200: listTablesResponse },
    access: table,
  },
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}': {
    entry: 'functions/iceberg/load-table.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary:
      'Load a table: its latest metadata (the data set’s latest Delta version) and, with `X-Iceberg-Access-Delegation: vended-credentials`, read access to its files',
    tag: 'Iceberg catalog',
    params: tableParams,
    query: loadTableQuery,
    responses: { 200: loadTableResult },
    access: tableLoadAccess,
    function: { timeoutSeconds: 29 },
  },
  'GET /iceberg/v1/namespaces/{namespace}/tables/{table}/credentials': {
    entry: 'functions/iceberg/load-credentials.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary:
      'Fresh vended credentials for a loaded table (the spec’s loadCredentials), which a client asks for before those it has expire: loading a table that vends them names this endpoint in `client.refresh-credentials-endpoint`',
    tag: 'Iceberg catalog',
    params: tableParams,
    responses: { 200: loadCredentialsResult },
    access: { table: 'read', tenantStores: 'read', secretsKey: true },
    function: { timeoutSeconds: 29 },
  },
  'HEAD /iceberg/v1/namespaces/{namespace}/tables/{table}': {
    entry: 'functions/iceberg/table-exists.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary: 'Whether the table exists for the key (a committed data set Iceberg can express): 204, else 404',
    tag: 'Iceberg catalog',
    params: tableParams,
    responses: { 204: null },
    access: { table: 'read' },
    function: { timeoutSeconds: 29 },
  },
  'ANY /iceberg/{path+}': {
    entry: 'functions/iceberg/refuse.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    protocol: 'iceberg',
    summary:
      'Everything else under /iceberg: a write (create, update, drop, rename, register, commit) is 403 `ForbiddenException`, the catalog being read-only; a read of anything else is 404',
    tag: 'Iceberg catalog',
    params: catalogPathParams,
    responses: {},
    access: table,
  },
} as const satisfies Record<string, RouteSpec>;
