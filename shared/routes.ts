/**
 * The route table: every HTTP route of Tributary, declared once. The CDK stack creates one Lambda
 * function and one API Gateway route per entry; the local HTTP front serves the same entries; the
 * OpenAPI document and the authorisation tests are generated from it. Adding a route means adding
 * one entry to its group under shared/routes/ and its handler file under functions/.
 */

import { connectionRoutes } from './routes/connections.ts';
import { consoleRoutes } from './routes/console.ts';
import { dataSetRoutes } from './routes/data-sets.ts';
import { icebergRoutes } from './routes/iceberg.ts';
import { ingestRoutes } from './routes/ingest.ts';
import { jobRoutes } from './routes/jobs.ts';
import { monitoringRoutes } from './routes/monitoring.ts';
import { pipelineRoutes } from './routes/pipelines.ts';
import { referenceRoutes } from './routes/reference.ts';
import { statusRoutes } from './routes/status.ts';
import { tenantRoutes } from './routes/tenants.ts';
import { userRoutes } from './routes/users.ts';
import { wikiRoutes } from './routes/wiki.ts';

export { notFoundRoute, type RouteSpec, routeKeyParts } from './routes/spec.ts';

/** Each group is a module of its own, so a function bundles only its own routes' schemas. */
export const routeGroups = {
  statusRoutes,
  referenceRoutes,
  consoleRoutes,
  tenantRoutes,
  userRoutes,
  connectionRoutes,
  monitoringRoutes,
  ingestRoutes,
  dataSetRoutes,
  pipelineRoutes,
  jobRoutes,
  wikiRoutes,
  icebergRoutes,
};

export const routes = {
  ...statusRoutes,
  ...referenceRoutes,
  ...consoleRoutes,
  ...tenantRoutes,
  ...userRoutes,
  ...connectionRoutes,
  ...monitoringRoutes,
  ...ingestRoutes,
  ...dataSetRoutes,
  ...pipelineRoutes,
  ...jobRoutes,
  ...wikiRoutes,
  ...icebergRoutes,
};
