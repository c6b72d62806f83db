/** Routes — What happened to a connection’s deliveries and a data set’s writes. Part of the route table (shared/routes.ts). */
import { connectionIdParams } from '../http/schemas/connections.ts';
import { dataSetIdParams } from '../http/schemas/data-sets.ts';
import {
  connectionStats,
  eventsQuery,
  listEventsResponse,
  listFailedDeliveriesResponse,
  listRejectionsResponse,
  listRunsResponse,
  monitoringPageQuery,
  redriveBody,
  redriveResponse,
} from '../http/schemas/monitoring.ts';
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
      'Send failed deliveries (all, or the message ids given) back to the ingest queue, at most 250 per call (`remaining` says how many wait); no row is ever written twice',
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
  'GET /api/connections/{connection_id}/events': {
    entry: 'functions/monitoring/events.ts',
    auth: 'apiKey',
    permission: 'connections.read',
    summary:
      'Accepted events read back from the data set, newest first, or by message id or time range (at most 16 files or 64 MiB of Parquet per request; the cursor goes on)',
    tag: 'Monitoring',
    params: connectionIdParams,
    query: eventsQuery,
    responses: { 200: listEventsResponse },
    access: { table: 'read', tenantStores: 'read', secretsKey: true, cursorKey: true },
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
