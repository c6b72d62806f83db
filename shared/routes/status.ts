/** Routes — Liveness, health and metrics. Part of the route table (shared/routes.ts). */
import { healthReport, metricsQuery } from '../http/schemas/status.ts';
import { type RouteSpec, table } from './spec.ts';

export const statusRoutes = {
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
    responses: { 200: healthReport, 503: healthReport },
    access: {
      table: 'read',
      describesTable: true,
      queues: { ingest: 'inspect', ingestDeadLetter: 'inspect' },
      platformBucket: {},
    },
  },
  'GET /metrics': {
    entry: 'functions/status/metrics.ts',
    auth: 'apiKey',
    permission: 'platform.metrics',
    summary:
      "Prometheus metrics (text format 0.0.4): the platform's and all sources' series, or each source's in shards",
    tag: 'Status',
    query: metricsQuery,
    responses: {
      200: { mediaType: 'text/plain; version=0.0.4', description: 'Counters and gauges in the Prometheus text format' },
    },
    access: table,
    // A scrape reads the platform's partitions (eight queries). One in shards (?shards=) reads every
    // source of its shard that moved within the hour, a query each: CPU-bound,
    // 0.41 to 0.46 ms a source on a full vCPU (10,000 sources: 4.1 to 4.6 s), and each of their items
    // (npm run bench scale). At the routes' 512 MB and 10 s it ended at its timeout past some 6,000
    // sources; past what a full vCPU reads in API Gateway's 29 s, a scrape is split in shards.
    function: { memoryMb: 1769, timeoutSeconds: 29 },
  },
} as const satisfies Record<string, RouteSpec>;
