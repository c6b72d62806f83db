/**
 * The route table: every HTTP route of Tributary, declared once. The CDK stack creates one Lambda
 * function and one API Gateway route per entry; the local HTTP front serves the same entries; the
 * OpenAPI document and the authorisation tests are generated from it. Adding a route means adding
 * one entry here and its handler file under functions/.
 */
import type { z } from 'zod';
import type { Permission } from './domain/authorization.ts';
import { healthReport } from './http/schemas/status.ts';
import {
  createTenantBody,
  createTenantResponse,
  dashboardConnection,
  listObjectStoresQuery,
  listObjectStoresResponse,
  listTenantsQuery,
  listTenantsResponse,
  registerObjectStoreBody,
  registerObjectStoreResponse,
  selectDefaultObjectStoreBody,
  tenant,
  tenantIdParams,
  updateObjectStoreOptionsBody,
} from './http/schemas/tenants.ts';
import {
  apiKeyParams,
  byEmailQuery,
  changeRoleBody,
  createApiKeyBody,
  createApiKeyResponse,
  createUserBody,
  createUserResponse,
  linkExternalIdBody,
  listApiKeysQuery,
  listApiKeysResponse,
  listUsersQuery,
  listUsersResponse,
  user,
  userIdParams,
} from './http/schemas/users.ts';
import type { Access, FunctionSettings } from './topology.ts';

export type AuthKind = 'public' | 'apiKey' | 'ingestToken';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteSpec {
  /** Handler module, relative to the repository root; it exports `handler`. */
  entry: string;
  auth: AuthKind;
  /** Required for apiKey routes: the permission the caller's role must hold. */
  permission?: Permission;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success statuses and their bodies (null: no body). Errors always use the error shape. */
  responses: Partial<Record<200 | 201 | 202 | 204, z.ZodType | null>>;
  access: Access;
  function?: FunctionSettings;
}

const table = { table: 'read' } as const satisfies Access;
const tableWrite = { table: 'readWrite' } as const satisfies Access;
const sealing = { table: 'readWrite', secretsKey: true } as const satisfies Access;

export const routes = {
  'GET /live': {
    entry: 'functions/status/live.ts',
    auth: 'public',
    summary: 'Liveness probe: 200 with an empty body while the service answers',
    tag: 'Status',
    responses: { 200: null },
    access: {},
  },
  'GET /health': {
    entry: 'functions/status/health.ts',
    auth: 'public',
    summary: 'Health report: the table, the queues and the platform bucket; 503 when one fails',
    tag: 'Status',
    responses: { 200: healthReport },
    access: { table: 'read', queues: { ingest: 'inspect', ingestDeadLetter: 'inspect' }, platformBucket: 'read' },
  },
  'GET /metrics': {
    entry: 'functions/status/metrics.ts',
    auth: 'apiKey',
    permission: 'platform.metrics',
    summary: 'Prometheus metrics (text format 0.0.4)',
    tag: 'Status',
    responses: { 200: null },
    access: table,
  },
  'GET /api/tenants': {
    entry: 'functions/tenants/list.ts',
    auth: 'apiKey',
    permission: 'tenants.read',
    summary: 'List tenants (a tenant key sees its own tenant only)',
    tag: 'Tenants',
    query: listTenantsQuery,
    responses: { 200: listTenantsResponse },
    access: table,
  },
  'POST /api/tenants': {
    entry: 'functions/tenants/create.ts',
    auth: 'apiKey',
    permission: 'tenants.create',
    summary: 'Create a tenant; its slug is derived from the name and unique',
    tag: 'Tenants',
    body: createTenantBody,
    responses: { 201: createTenantResponse },
    access: tableWrite,
  },
  'GET /api/tenants/{tenant_id}': {
    entry: 'functions/tenants/get.ts',
    auth: 'apiKey',
    permission: 'tenants.read',
    summary: 'Get a tenant',
    tag: 'Tenants',
    params: tenantIdParams,
    responses: { 200: tenant },
    access: table,
  },
  'POST /api/tenants/{tenant_id}/suspend': {
    entry: 'functions/tenants/suspend.ts',
    auth: 'apiKey',
    permission: 'tenants.suspend',
    summary: 'Suspend a tenant: reads still work; writes and ingest get 422 TENANT_SUSPENDED',
    tag: 'Tenants',
    params: tenantIdParams,
    responses: { 204: null },
    access: tableWrite,
  },
  'POST /api/tenants/{tenant_id}/reactivate': {
    entry: 'functions/tenants/reactivate.ts',
    auth: 'apiKey',
    permission: 'tenants.suspend',
    summary: 'Reactivate a suspended tenant',
    tag: 'Tenants',
    params: tenantIdParams,
    responses: { 204: null },
    access: tableWrite,
  },
  'GET /api/tenants/{tenant_id}/object-stores': {
    entry: 'functions/tenants/list-object-stores.ts',
    auth: 'apiKey',
    permission: 'object-stores.read',
    summary: "List the tenant's object stores (option keys only, never their values)",
    tag: 'Tenants',
    params: tenantIdParams,
    query: listObjectStoresQuery,
    responses: { 200: listObjectStoresResponse },
    access: table,
  },
  'POST /api/tenants/{tenant_id}/register-object-store': {
    entry: 'functions/tenants/register-object-store.ts',
    auth: 'apiKey',
    permission: 'object-stores.manage',
    summary: 'Register an S3 object store (s3://bucket[/prefix]); the first one becomes the default',
    tag: 'Tenants',
    params: tenantIdParams,
    body: registerObjectStoreBody,
    responses: { 201: registerObjectStoreResponse },
    access: sealing,
  },
  'POST /api/tenants/{tenant_id}/select-default-object-store': {
    entry: 'functions/tenants/select-default-object-store.ts',
    auth: 'apiKey',
    permission: 'object-stores.manage',
    summary: "Choose the tenant's default object store (where new data sets are written)",
    tag: 'Tenants',
    params: tenantIdParams,
    body: selectDefaultObjectStoreBody,
    responses: { 204: null },
    access: tableWrite,
  },
  'POST /api/tenants/{tenant_id}/update-object-store-options': {
    entry: 'functions/tenants/update-object-store-options.ts',
    auth: 'apiKey',
    permission: 'object-stores.manage',
    summary: "Replace an object store's options (credentials, endpoint, role)",
    tag: 'Tenants',
    params: tenantIdParams,
    body: updateObjectStoreOptionsBody,
    responses: { 204: null },
    access: sealing,
  },
  'GET /api/tenants/{tenant_id}/dashboard-connection': {
    entry: 'functions/tenants/get-dashboard-connection.ts',
    auth: 'apiKey',
    permission: 'tenants.read',
    summary: "The state of the tenant's dashboard connection",
    tag: 'Tenants',
    params: tenantIdParams,
    responses: { 200: dashboardConnection },
    access: table,
  },
  'POST /api/tenants/{tenant_id}/dashboard-connection/retry': {
    entry: 'functions/tenants/retry-dashboard-connection.ts',
    auth: 'apiKey',
    permission: 'dashboard.manage',
    summary: 'Provision the dashboard connection again (status becomes Pending)',
    tag: 'Tenants',
    params: tenantIdParams,
    responses: { 200: dashboardConnection },
    access: { ...sealing, queues: { dashboard: 'send' } },
  },
  'POST /api/tenants/{tenant_id}/dashboard-connection/rotate': {
    entry: 'functions/tenants/rotate-dashboard-credential.ts',
    auth: 'apiKey',
    permission: 'dashboard.manage',
    summary: "Replace the dashboard's read-only credential; the old one stops working at once",
    tag: 'Tenants',
    params: tenantIdParams,
    responses: { 204: null },
    access: { ...sealing, queues: { dashboard: 'send' } },
  },
  'GET /api/users': {
    entry: 'functions/users/list.ts',
    auth: 'apiKey',
    permission: 'users.read',
    summary: 'List users, filtered by tenant, role and status',
    tag: 'Users',
    query: listUsersQuery,
    responses: { 200: listUsersResponse },
    access: table,
  },
  'POST /api/users': {
    entry: 'functions/users/create.ts',
    auth: 'apiKey',
    permission: 'users.manage',
    summary: 'Create a user (email unique regardless of case; password of at least 12 characters)',
    tag: 'Users',
    body: createUserBody,
    responses: { 201: createUserResponse },
    access: tableWrite,
  },
  'GET /api/users/by-email': {
    entry: 'functions/users/get-by-email.ts',
    auth: 'apiKey',
    permission: 'users.read',
    summary: 'Find a user by email (case-insensitive)',
    tag: 'Users',
    query: byEmailQuery,
    responses: { 200: user },
    access: table,
  },
  'GET /api/users/{user_id}': {
    entry: 'functions/users/get.ts',
    auth: 'apiKey',
    permission: 'users.read',
    summary: 'Get a user',
    tag: 'Users',
    params: userIdParams,
    responses: { 200: user },
    access: table,
  },
  'POST /api/users/{user_id}/change-role': {
    entry: 'functions/users/change-role.ts',
    auth: 'apiKey',
    permission: 'users.manage',
    summary: "Change a user's role (not your own)",
    tag: 'Users',
    params: userIdParams,
    body: changeRoleBody,
    responses: { 204: null },
    access: tableWrite,
  },
  'POST /api/users/{user_id}/deactivate': {
    entry: 'functions/users/deactivate.ts',
    auth: 'apiKey',
    permission: 'users.manage',
    summary: 'Deactivate a user: their API keys stop working on the next request',
    tag: 'Users',
    params: userIdParams,
    responses: { 204: null },
    access: tableWrite,
  },
  'POST /api/users/{user_id}/reactivate': {
    entry: 'functions/users/reactivate.ts',
    auth: 'apiKey',
    permission: 'users.manage',
    summary: 'Reactivate a deactivated user',
    tag: 'Users',
    params: userIdParams,
    responses: { 204: null },
    access: tableWrite,
  },
  'POST /api/users/{user_id}/link-external-id': {
    entry: 'functions/users/link-external-id.ts',
    auth: 'apiKey',
    permission: 'users.manage',
    summary: "Link the user's identity-provider id",
    tag: 'Users',
    params: userIdParams,
    body: linkExternalIdBody,
    responses: { 204: null },
    access: tableWrite,
  },
  'POST /api/users/{user_id}/api-keys': {
    entry: 'functions/users/create-api-key.ts',
    auth: 'apiKey',
    permission: 'api-keys.manage',
    summary: 'Issue an API key for a user; the key is shown in this response only',
    tag: 'Users',
    params: userIdParams,
    body: createApiKeyBody,
    responses: { 201: createApiKeyResponse },
    access: tableWrite,
  },
  'GET /api/users/{user_id}/api-keys': {
    entry: 'functions/users/list-api-keys.ts',
    auth: 'apiKey',
    permission: 'api-keys.manage',
    summary: "List a user's API keys (prefixes, never the keys)",
    tag: 'Users',
    params: userIdParams,
    query: listApiKeysQuery,
    responses: { 200: listApiKeysResponse },
    access: table,
  },
  'DELETE /api/users/{user_id}/api-keys/{api_key_id}': {
    entry: 'functions/users/revoke-api-key.ts',
    auth: 'apiKey',
    permission: 'api-keys.manage',
    summary: 'Revoke an API key; it stops working on the next request',
    tag: 'Users',
    params: apiKeyParams,
    responses: { 204: null },
    access: tableWrite,
  },
} as const satisfies Record<string, RouteSpec>;

export type RouteKey = keyof typeof routes;

/** Answers requests that match no route, in the error shape (API Gateway's `$default` route). */
export const notFoundRoute = {
  entry: 'functions/status/not-found.ts',
  summary: 'Any request that matches no route: 404 in the error shape',
  access: {},
} as const;

export function routeKeyParts(key: string): { method: HttpMethod; path: string } {
  const [method, path] = key.split(' ') as [HttpMethod, string];
  return { method, path };
}
