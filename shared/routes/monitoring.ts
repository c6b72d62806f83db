/** Routes — What happened to a connection’s deliveries and a data set’s writes. Part of the route table (shared/routes.ts). */
import { connectionIdParams } from '../http/schemas/connections.ts';
import { dataSetIdParams } from '../http/schemas/data-sets.ts';
import {
  connectionStats,
  eventsQuery,
  historyQuery,
  historyResponse,
  listEventsResponse,
  listFailedDeliveriesResponse,
  listRejectionsResponse,
  listRunsResponse,
  monitoringPageQuery,
  redriveBody,
  redriveResponse,
  tenantHistoryResponse,
} from '../http/schemas/monitoring.ts';
import { tenantIdParams } from '../http/schemas/tenants.ts';
import { listing, type RouteSpec, table } from './spec.ts';

export const monitoringRoutes = {
  'GET /api/connections/{connection_id}/rejections': {
    entry: 'functions/monitoring/rejections.ts',
    auth: 'apiKey',
    permission: 'connections.read',
    summary: 'Ingest requests refused after the source was identified, newest first (the last 1000, 7 days)',
    tag: 'Monitoring',
    params: connectionIdParams,
    query: monitoringPageQuery,
    responses: { 200: listRejectionsResponse },
    access: listing,
  },
  'GET /api/connections/{connection_id}/failed-deliveries': {
    entry: 'functions/monitoring/failed-deliveries.ts',
    auth: 'apiKey',
    permission: 'connections.read',
    summary: 'Envelopes that exhausted their deliveries, with the last error, newest first',
    tag: 'Monitoring',
    params: connectionIdParams,
    query: monitoringPageQuery,
    responses: { 200: listFailedDeliveriesResponse },
    access: listing,
  },
  'POST /api/connections/{connection_id}/failed-deliveries/redrive': {
    entry: 'functions/monitoring/redrive.ts',
    auth: 'apiKey',
    permission: 'connections.operate',
    summary:
      'Send failed deliveries (all, or those of the message ids, failure time range or error category given) back to the ingest queue, at most 250 per call (`remaining` says how many wait), with the counts by category; no row is ever written twice',
    tag: 'Monitoring',
    params: connectionIdParams,
    body: redriveBody,
    responses: { 200: redriveResponse },
    access: {
      table: 'readWrite',
      deletesItems: true,
      platformBucket: { claims: 'readWrite', deadLetters: 'readWrite' },
      queues: { ingest: 'send' },
    },
    function: { timeoutSeconds: 29 },
  },
  'GET /api/connections/{connection_id}/stats': {
    entry: 'functions/monitoring/stats.ts',
    auth: 'apiKey',
    permission: 'connections.read',
    summary:
      'Accepted, duplicates, rejected by code, written, dead-lettered, redriven, unaccounted, last ingest and write, oldest unwritten',
    tag: 'Monitoring',
    params: connectionIdParams,
    responses: { 200: connectionStats },
    access: table,
  },
  'GET /api/connections/{connection_id}/stats/history': {
    entry: 'functions/monitoring/stats-history.ts',
    auth: 'apiKey',
    permission: 'connections.read',
    summary:
      'Accepted, rejected by code, written, dead-lettered (and duplicates, redriven) per 15 minutes, hour or day, for up to 30 days back',
    tag: 'Monitoring',
    params: connectionIdParams,
    query: historyQuery,
    responses: { 200: historyResponse },
    access: table,
  },
  'GET /api/tenants/{tenant_id}/stats/history': {
    entry: 'functions/monitoring/tenant-stats-history.ts',
    auth: 'apiKey',
    permission: 'connections.read',
    summary: 'The traffic history of all the tenant’s connections added up, as a connection’s',
    tag: 'Monitoring',
    params: tenantIdParams,
    query: historyQuery,
    responses: { 200: tenantHistoryResponse },
    access: table,
  },
  'GET /api/connections/{connection_id}/events': {
    entry: 'functions/monitoring/events.ts',
    auth: 'apiKey',
    permission: 'connections.read',
    summary:
      'Accepted events read back from the data set, newest first: by message id, time range, bytes the body contains or a JSON value (at most 16 files or 64 MiB of Parquet per request; the cursor goes on, and the answer says how far back it looked)',
    tag: 'Monitoring',
    params: connectionIdParams,
    query: eventsQuery,
    responses: { 200: listEventsResponse },
    access: {
      table: 'read',
      // Envelopes staged but not committed yet, and the bodies they point at.
      platformBucket: { staging: 'read', claims: 'read' },
      tenantStores: 'read',
      secretsKey: true,
      cursorKey: true,
    },
    function: { memoryMb: 1024, timeoutSeconds: 29 },
  },
  'GET /api/data-sets/{data_set_id}/runs': {
    entry: 'functions/monitoring/runs.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    summary: 'The commits of a data set, newest first: version, files, rows, bytes, duration, attempt',
    tag: 'Monitoring',
    params: dataSetIdParams,
    query: monitoringPageQuery,
    responses: { 200: listRunsResponse },
    access: listing,
  },
} as const satisfies Record<string, RouteSpec>;
