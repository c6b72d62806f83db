/**
 * A job: what it is, what started it, how far it got, and its counts; followed until it has
 * finished (a run just started from a pipeline's page links here).
 */
import { api, type Schemas } from '../api.ts';
import { el, facts, replace, table, when } from '../dom.ts';
import { every, polledPart, pollMs, type View } from '../view.ts';

type Job = Schemas['Job'];

const finished: Job['status'][] = ['Succeeded', 'Failed', 'Cancelled'];

/** The pipeline a job runs, as its source names it (the schema leaves a job's source to its type). */
const pipelineOf = (job: Job): string | null =>
  typeof job.source === 'object' &&
  job.source !== null &&
  'pipeline_id' in job.source &&
  typeof job.source.pipeline_id === 'string'
    ? job.source.pipeline_id
    : null;

const count = (value: number | null) => (value === null ? '—' : value);

function jobFacts(job: Job): HTMLElement[] {
  const pipelineId = pipelineOf(job);
  return [
    facts(
      ['Status', job.status, 'job-status'],
      ['Type', job.job_type],
      ['Pipeline', pipelineId ? el('a', { href: `#/pipelines/${pipelineId}` }, pipelineId.slice(0, 8)) : '—'],
      ['Rows in', count(job.rows_in), 'job-rows-in'],
      ['Rows out', count(job.rows_out), 'job-rows-out'],
      ['Rows rejected', count(job.rows_rejected)],
      ['Rows filtered out', count(job.rows_filtered)],
      ['Created', when(job.created_at)],
      ['Started', when(job.started_at)],
      ['Finished', when(job.completed_at)],
      ['Error', job.error_message ?? '—'],
    ),
    ...(job.rejection_samples.length
      ? [
          table<Job['rejection_samples'][number]>(
            'Rejected rows (a sample)',
            [
              { label: 'Message id', header: true, cell: (r) => el('code', {}, r.message_id) },
              { label: 'Reason', cell: (r) => r.reason },
            ],
            job.rejection_samples,
          ),
        ]
      : []),
  ];
}

export function jobView(jobId: string): View {
  return async (main, _caller, signal) => {
    const first = await api<Job>(`api/jobs/${jobId}`, { signal });
    let stop = () => {};
    const part = polledPart(
      () => api<Job>(`api/jobs/${jobId}`, { signal }),
      (element, job) => {
        replace(element, jobFacts(job));
        if (finished.includes(job.status)) stop();
      },
    );
    replace(part.element, jobFacts(first));
    replace(
      main,
      el('h1', {}, `Job ${jobId.slice(0, 8)}`),
      el('p', {}, el('a', { href: '#/pipelines' }, '← pipelines and jobs')),
      el('div', { 'aria-live': 'polite' }, part.element),
    );
    if (!finished.includes(first.status)) stop = every(signal, pollMs, () => void part.refresh());
    return undefined;
  };
}
