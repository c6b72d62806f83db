/** Routes — Data sets and their Delta tables. Part of the route table (shared/routes.ts). */
import {
  currentTablePropertiesResponse,
  dataSet,
  dataSetFiles,
  dataSetFilesQuery,
  dataSetIdParams,
  listDataSetsQuery,
  listDataSetsResponse,
  optimizeBody,
  tablePropertiesBody,
  tablePropertiesResponse,
} from '../http/schemas/data-sets.ts';
import { createJobResponse } from '../http/schemas/jobs.ts';
import { columnSuggestion, suggestColumnsBody } from '../http/schemas/pipelines.ts';
import { listing, type RouteSpec, table } from './spec.ts';

export const dataSetRoutes = {
  'GET /api/data-sets': {
    entry: 'functions/data-sets/list.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    summary: 'List data sets, filtered by tenant and pipeline',
    tag: 'Data sets',
    query: listDataSetsQuery,
    responses: { 200: listDataSetsResponse },
    access: listing,
  },
  'GET /api/data-sets/{data_set_id}': {
    entry: 'functions/data-sets/get.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    summary: 'Get a data set',
    tag: 'Data sets',
    params: dataSetIdParams,
    responses: { 200: dataSet },
    access: table,
  },
  'DELETE /api/data-sets/{data_set_id}': {
    entry: 'functions/data-sets/delete.ts',
    auth: 'apiKey',
    permission: 'data-sets.delete',
    summary:
      'Delete a data set and its files (409 while a connection or pipeline writes to it, its envelopes wait staged or a run of its pipeline is under way): 204 when done; 202 with the job deleting a table of over 1,000 files or 200 versions, or one a maintenance run holds',
    tag: 'Data sets',
    params: dataSetIdParams,
    responses: { 202: createJobResponse, 204: null },
    access: {
      table: 'readWrite',
      deletesItems: true,
      tenantStores: 'readWrite',
      // The data set's failed deliveries go with it: their kept envelopes first.
      platformBucket: { deadLetters: 'readDelete' },
      secretsKey: true,
      queues: { jobs: 'send' },
    },
    function: { timeoutSeconds: 29 },
  },
  'GET /api/data-sets/{data_set_id}/files': {
    entry: 'functions/data-sets/files.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    summary:
      "The files of the data set's latest Delta snapshot, newest first, a page at a time, with download URLs valid 15 minutes",
    tag: 'Data sets',
    params: dataSetIdParams,
    query: dataSetFilesQuery,
    responses: { 200: dataSetFiles },
    access: { table: 'read', tenantStores: 'read', secretsKey: true, cursorKey: true },
  },
  'POST /api/data-sets/{data_set_id}/optimize': {
    entry: 'functions/data-sets/optimize.ts',
    auth: 'apiKey',
    permission: 'jobs.write',
    summary:
      "Start a maintenance run of the data set's table (a job of type Optimize): compacts day partitions with small files, vacuums files removed over 7 days ago",
    tag: 'Data sets',
    params: dataSetIdParams,
    body: optimizeBody,
    responses: { 202: createJobResponse },
    access: { table: 'readWrite', queues: { jobs: 'send' } },
  },
  'GET /api/data-sets/{data_set_id}/table-properties': {
    entry: 'functions/data-sets/get-table-properties.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    summary:
      "The table's properties as its latest version sets them, and those in force (each set one, else its default); any role that reads the data set. A table with no commit yet answers 200 with `version: null`, no properties and the defaults (the deployment's freshness target), as its first commit would start from them",
    tag: 'Data sets',
    params: dataSetIdParams,
    responses: { 200: currentTablePropertiesResponse },
    access: { table: 'read', tenantStores: 'read', secretsKey: true },
  },
  'PUT /api/data-sets/{data_set_id}/table-properties': {
    entry: 'functions/data-sets/put-table-properties.ts',
    auth: 'apiKey',
    permission: 'data-sets.delete',
    summary:
      "Set the table's maintenance properties (checkpoint interval, retentions, compaction target): a new Delta version; a tenant admin's, as retentions decide when files are deleted (409 while a maintenance run or a deletion holds the table)",
    tag: 'Data sets',
    params: dataSetIdParams,
    body: tablePropertiesBody,
    responses: { 200: tablePropertiesResponse },
    // The commits queue: a freshness target set brings the table's committer. The table's hold is a
    // lease item, deleted on release, and the jobs that waited behind it are offered again.
    access: {
      table: 'readWrite',
      deletesItems: true,
      tenantStores: 'readWrite',
      secretsKey: true,
      queues: { commits: 'send', jobs: 'send' },
    },
  },
  'POST /api/data-sets/{data_set_id}/suggest-columns': {
    entry: 'functions/data-sets/suggest-columns.ts',
    auth: 'apiKey',
    permission: 'data-sets.read',
    summary:
      "Propose a pipeline's columns (paths, types, names) from the data set's recent payloads: up to `sample` envelopes of its 16 newest files, decoded as `format` would",
    tag: 'Data sets',
    params: dataSetIdParams,
    body: suggestColumnsBody,
    responses: { 200: columnSuggestion },
    access: { table: 'read', tenantStores: 'read', secretsKey: true },
    function: { memoryMb: 1024, timeoutSeconds: 29 },
  },
} as const satisfies Record<string, RouteSpec>;
