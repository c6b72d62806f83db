/**
 * The route table: every HTTP route of Tributary, declared once. The CDK stack creates one Lambda
 * function and one API Gateway route per entry; the local HTTP front serves the same entries; the
 * OpenAPI document and the authorisation tests are generated from it. Adding a route means adding
 * one entry here and its handler file under functions/.
 */
import type { z } from 'zod';
import type { Permission } from './domain/authorization.ts';
import { healthReport } from './http/schemas/status.ts';
import { createTenantBody, listTenantsQuery, listTenantsResponse } from './http/schemas/tenants.ts';
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
    responses: { 201: null },
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
