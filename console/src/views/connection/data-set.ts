/**
 * What the connection's data set holds, polled: its last commits and the files of its latest
 * snapshot. The files are read from the tenant's store: while it does not answer, they show its
 * error and the rest of the page goes on.
 */
import { type Answer, api, qs, type Schemas } from '../../api.ts';
import { bytes, el, replace, table, when } from '../../dom.ts';
import { type PolledPart, polledPart } from '../../view.ts';

type Run = Schemas['Run'];
type DataFile = Schemas['DataSetFiles']['files'][number];

export function dataSetRuns(dataSetId: string): PolledPart {
  return polledPart(
    () => api<Answer<'/api/data-sets/{data_set_id}/runs'>>(`api/data-sets/${dataSetId}/runs${qs({ limit: 20 })}`),
    (element, { runs }) =>
      replace(
        element,
        table<Run>(
          'The data set’s last 20 commits',
          [
            { label: 'Version', header: true, cell: (r) => r.version },
            { label: 'Files', cell: (r) => r.files },
            { label: 'Rows', cell: (r) => r.rows },
            { label: 'Bytes', cell: (r) => bytes(r.bytes) },
            { label: 'Duration', cell: (r) => (r.duration_ms === null ? '—' : `${r.duration_ms} ms`) },
            { label: 'Attempt', cell: (r) => r.attempt },
            { label: 'Completed', cell: (r) => when(r.completed_at) },
          ],
          runs,
          'Nothing written yet',
        ),
      ),
  );
}

function filesCaption({ version, files, next_cursor }: Answer<'/api/data-sets/{data_set_id}/files'>): string {
  if (version === null) return 'No snapshot yet';
  return `Latest snapshot, version ${version}: ${next_cursor ? `the newest ${files.length} files` : `${files.length} files`}`;
}

export function dataSetFiles(dataSetId: string): PolledPart {
  return polledPart(
    () => api<Answer<'/api/data-sets/{data_set_id}/files'>>(`api/data-sets/${dataSetId}/files${qs({ limit: 50 })}`),
    (element, answer) =>
      replace(
        element,
        table<DataFile>(
          filesCaption(answer),
          [
            { label: 'Path', header: true, cell: (f) => el('a', { href: f.url, rel: 'noreferrer' }, f.path) },
            { label: 'Rows', cell: (f) => f.num_records },
            { label: 'Size', cell: (f) => bytes(f.size) },
          ],
          answer.files,
          'No files yet',
        ),
      ),
  );
}
