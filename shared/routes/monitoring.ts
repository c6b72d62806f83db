/** Routes — What happened to a connection’s deliveries and a data set’s writes. Part of the route table (shared/routes.ts). */
import { connectionIdParams } from '../http/schemas/connections.ts';
import { dataSetIdParams } from '../http/schemas/data-sets.ts';
import {
  connectionStats,
  listFailedDeliveriesResponse,
  listRejectionsResponse,
  listRunsResponse,
  monitoringPageQuery,
  redriveBody,
  redriveResponse,
} from '../http/schemas/monitoring.ts';
import { type RouteSpec, table } from './spec.ts';

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
    access: table,
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
    access: table,
  },
  'POST /api/connections/{connection_id}/failed-deliveries/redrive': {
    entry: 'functions/monitoring/redrive.ts',
    auth: 'apiKey',
    permission: 'connections.operate',
    summary:
      'Send failed deliveries (all, or the message ids given) back to the ingest queue; no row is ever written twice',
    tag: 'Monitoring',
    params: connectionIdParams,
    body: redriveBody,
    responses: { 200: redriveResponse },
    access: { table: 'readWrite', platformBucket: 'readWrite', queues: { ingest: 'send' } },
    function: { timeoutSeconds: 60 },
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
  'GET /api/data-sets/{data_set_id}/runs': {
    entry: 'functions/monitoring/runs.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    summary: 'The commits of a data set, newest first: version, files, rows, bytes, duration, attempt',
    tag: 'Monitoring',
    params: dataSetIdParams,
    query: monitoringPageQuery,
    responses: { 200: listRunsResponse },
    access: table,
  },
} as const satisfies Record<string, RouteSpec>;
