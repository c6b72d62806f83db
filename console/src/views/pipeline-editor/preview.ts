/**
 * "Preview": a definition run as a query job over its data set, with the job's counts, its first
 * rows and a sample of the rows it rejected.
 */
import { type Answer, api, type Body, type Schemas } from '../../api.ts';
import { counted, el, errorBox, replace, table } from '../../dom.ts';
import { pause } from '../../view.ts';

type Job = Schemas['Job'];
type QueryJob = Extract<Body<'/api/jobs', 'post'>, { type: 'query' }>;

const finished: Job['status'][] = ['Succeeded', 'Failed', 'Cancelled'];

/**
 * Asks for the job until it has finished, for a minute at most (it is then shown as still
 * running), or until the operator leaves the page (`signal`).
 */
async function jobWhenDone(jobId: string, signal: AbortSignal): Promise<Job> {
  let job = await api<Job>(`api/jobs/${jobId}`, { signal });
  for (let polls = 0; !finished.includes(job.status) && polls < 120; polls++) {
    await pause(signal, 500);
    job = await api<Job>(`api/jobs/${jobId}`, { signal });
  }
  return job;
}

/** A query that stopped at how much it may read says how much of the data set that was. */
function scanNote(result: Answer<'/api/jobs/{job_id}/result'>): string {
  if (result.truncated_by !== 'scan' || !result.scanned) return '';
  const { files, files_total: total } = result.scanned;
  return ` The query read ${files} of the data set’s ${counted(total, 'file')} (oldest first), the most a query reads; the rows of the rest are not in it.`;
}

function jobResult(job: Job, result: Answer<'/api/jobs/{job_id}/result'>) {
  return [
    el(
      'p',
      { class: 'notice', id: 'preview-counts' },
      `Rows in ${job.rows_in}, out ${job.rows_out}, rejected ${job.rows_rejected}, filtered out ${job.rows_filtered}` +
        `${result.truncated ? ' (the first 20 shown)' : ''}.`,
      scanNote(result),
    ),
    table<(string | number | boolean | null)[]>(
      'Preview',
      result.columns.map((column, i) => ({
        label: column.name,
        cell: (row) => (row[i] === null || row[i] === undefined ? '—' : String(row[i])),
      })),
      result.rows,
      'No rows',
    ),
    job.rejection_samples.length
      ? table<Job['rejection_samples'][number]>(
          'Rejected rows (a sample)',
          [
            { label: 'Message id', header: true, cell: (r) => el('code', {}, r.message_id) },
            { label: 'Reason', cell: (r) => r.reason },
          ],
          job.rejection_samples,
        )
      : null,
  ];
}

export function queryPreview(signal: AbortSignal) {
  const element = el('div', { 'aria-live': 'polite' });
  const run = async (tenantId: string | undefined, query: QueryJob['query']) => {
    replace(element, el('p', { class: 'muted' }, 'Running a query over the data set…'));
    try {
      const body: QueryJob = { type: 'query', tenant_id: tenantId, query, limit: 20 };
      const started = await api<Answer<'/api/jobs', 'post'>>('api/jobs', { method: 'POST', body });
      const job = await jobWhenDone(started.job_id, signal);
      if (job.status !== 'Succeeded') {
        replace(
          element,
          el(
            'p',
            { class: 'error', role: 'alert' },
            `The query ${job.status}: ${job.error_message ?? 'still running'}`,
          ),
        );
        return;
      }
      replace(element, jobResult(job, await api<Answer<'/api/jobs/{job_id}/result'>>(`api/jobs/${job.job_id}/result`)));
    } catch (error) {
      if (!signal.aborted) replace(element, errorBox(error));
    }
  };
  return { element, run };
}
