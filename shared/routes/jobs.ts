/** Routes — Jobs: runs of pipelines and queries. Part of the route table (shared/routes.ts). */
import {
  createJobBody,
  createJobResponse,
  job,
  jobIdParams,
  jobResult,
  listJobsQuery,
  listJobsResponse,
} from '../http/schemas/jobs.ts';
import { listing, type RouteSpec, table, tableWrite } from './spec.ts';

export const jobRoutes = {
  'GET /api/jobs': {
    entry: 'functions/jobs/list.ts',
    auth: 'apiKey',
    permission: 'jobs.read',
    summary: 'List jobs, newest first, filtered by tenant, type and status',
    tag: 'Jobs',
    query: listJobsQuery,
    responses: { 200: listJobsResponse },
    access: listing,
  },
  'POST /api/jobs': {
    entry: 'functions/jobs/create.ts',
    auth: 'apiKey',
    permission: 'jobs.write',
    summary: 'Start a pipeline run or a query',
    tag: 'Jobs',
    body: createJobBody,
    responses: { 201: createJobResponse },
    access: { table: 'readWrite', queues: { jobs: 'send' } },
  },
  'GET /api/jobs/{job_id}': {
    entry: 'functions/jobs/get.ts',
    auth: 'apiKey',
    permission: 'jobs.read',
    summary: 'Get a job',
    tag: 'Jobs',
    params: jobIdParams,
    responses: { 200: job },
    access: table,
  },
  'POST /api/jobs/{job_id}/cancel': {
    entry: 'functions/jobs/cancel.ts',
    auth: 'apiKey',
    permission: 'jobs.write',
    summary: 'Cancel a job: at once when Queued or Dispatched; before its commit when Running',
    tag: 'Jobs',
    params: jobIdParams,
    responses: { 204: null },
    access: tableWrite,
  },
  'GET /api/jobs/{job_id}/result': {
    entry: 'functions/jobs/result.ts',
    auth: 'apiKey',
    permission: 'jobs.read',
    summary: "A query job's rows, once it has succeeded",
    tag: 'Jobs',
    params: jobIdParams,
    responses: { 200: jobResult },
    access: { table: 'read', platformBucket: { jobResults: 'read' } },
  },
} as const satisfies Record<string, RouteSpec>;
