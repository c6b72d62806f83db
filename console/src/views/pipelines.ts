import { type Answer, api, qs, type Schemas } from '../api.ts';
import { el, replace, table, when } from '../dom.ts';
import type { View } from '../view.ts';

type Pipeline = Schemas['Pipeline'];
type Job = Schemas['Job'];

/** A job's payload is the job type's own (unknown to the API's schema): pipeline runs say what started them. */
const startedByNewData = (payload: unknown) =>
  typeof payload === 'object' && payload !== null && 'trigger' in payload && payload.trigger === 'on_new_data';

const count = (value: number | null) => (value === null ? '—' : value);

export const pipelinesView: View = async (main, caller, signal) => {
  const scope = qs({ tenant_id: caller.tenant_id, limit: 100 });
  const [{ pipelines }, { jobs }] = await Promise.all([
    api<Answer<'/api/pipelines'>>(`api/pipelines${scope}`, { signal }),
    api<Answer<'/api/jobs'>>(`api/jobs${qs({ tenant_id: caller.tenant_id, limit: 50 })}`, { signal }),
  ]);
  replace(
    main,
    el('h1', {}, 'Pipelines and jobs'),
    el(
      'p',
      {},
      el('a', { href: '#/pipelines/new' }, 'New pipeline'),
      ' · a pipeline decodes a webhook data set (JSON, XML, forms, NDJSON) into a typed Delta table.',
    ),
    table<Pipeline>(
      'Pipelines',
      [
        { label: 'Pipeline', header: true, cell: (p) => el('a', { href: `#/pipelines/${p.pipeline_id}` }, p.name) },
        { label: 'Status', cell: (p) => p.status },
        { label: 'Working version', cell: (p) => p.working_version },
        { label: 'Deployed version', cell: (p) => (p.deployed_version ? p.deployed_version : 'not deployed') },
        { label: 'Deployed at', cell: (p) => when(p.deployed_at) },
      ],
      pipelines,
      'No pipelines',
    ),
    table<Job>(
      'Recent jobs, newest first',
      [
        {
          label: 'Job',
          header: true,
          cell: (j) => el('a', { href: `#/jobs/${j.job_id}` }, el('code', {}, j.job_id.slice(0, 8))),
        },
        { label: 'Type', cell: (j) => j.job_type },
        { label: 'Status', cell: (j) => j.status },
        { label: 'Rows in', cell: (j) => count(j.rows_in) },
        { label: 'Rows out', cell: (j) => count(j.rows_out) },
        { label: 'Rejected', cell: (j) => count(j.rows_rejected) },
        { label: 'Filtered', cell: (j) => count(j.rows_filtered) },
        {
          label: 'Started by',
          cell: (j) => (startedByNewData(j.payload) ? 'new data' : j.job_type === 'Pipeline' ? 'trigger' : '—'),
        },
        { label: 'Created', cell: (j) => when(j.created_at) },
        { label: 'Finished', cell: (j) => when(j.completed_at) },
        { label: 'Error', cell: (j) => j.error_message ?? '' },
      ],
      jobs,
      'No jobs',
    ),
  );
  return undefined;
};
