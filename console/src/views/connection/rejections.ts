/** The requests a connection refused last (polled): when, why, and the headers they came with. */
import { type Answer, api, qs, type Schemas } from '../../api.ts';
import { bytes, el, replace, table, when } from '../../dom.ts';
import { type PolledPart, polledPart } from '../../view.ts';

type Rejection = Schemas['Rejection'];

export function recentRejections(base: string): PolledPart {
  return polledPart(
    () => api<Answer<'/api/connections/{connection_id}/rejections'>>(`${base}/rejections${qs({ limit: 20 })}`),
    (element, { rejections }) =>
      replace(
        element,
        table<Rejection>(
          'The last 20 refused requests',
          [
            { label: 'At', cell: (r) => when(r.at) },
            { label: 'Status', cell: (r) => r.status },
            { label: 'Code', cell: (r) => r.code },
            { label: 'Content type', cell: (r) => r.content_type ?? '—' },
            { label: 'Size', cell: (r) => bytes(r.payload_size) },
            {
              label: 'Headers',
              cell: (r) =>
                el(
                  'ul',
                  { class: 'headers' },
                  Object.entries(r.headers).map(([name, value]) => el('li', {}, `${name}: ${value}`)),
                ),
            },
          ],
          rejections,
          'No rejections',
        ),
      ),
  );
}
