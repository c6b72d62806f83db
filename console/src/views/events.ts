import { api, type Connection, qs } from '../api.ts';
import { bodyView } from '../body.ts';
import { bytes, el, errorBox, replace, when } from '../dom.ts';

interface StoredEvent {
  message_id: string;
  received_at: string;
  content_type: string | null;
  payload_size: number;
  payload: string;
  payload_truncated: boolean;
}
interface EventPage {
  events: StoredEvent[];
  next_cursor: string | null;
  files_read: number;
}

/** `datetime-local` values are read as UTC, as every time in the console is shown. */
const utc = (value: string) => (value ? new Date(`${value}:00.000Z`).toISOString() : undefined);

export function eventsView(connectionId: string) {
  return async (main: HTMLElement): Promise<undefined> => {
    const connection = await api<Connection>(`api/connections/${connectionId}`);
    const list = el('div', { 'aria-live': 'polite' });
    const messageId = el('input', { id: 'message-id', name: 'message-id', placeholder: 'e.g. 0b6c…', size: 38 });
    const from = el('input', { id: 'from', name: 'from', type: 'datetime-local' });
    const to = el('input', { id: 'to', name: 'to', type: 'datetime-local' });

    const eventItem = (event: StoredEvent, open: boolean) =>
      el(
        'li',
        {},
        el(
          'details',
          { open },
          el(
            'summary',
            {},
            el('code', {}, event.message_id),
            ` · ${when(event.received_at)} · ${event.content_type ?? 'no content type'} · ${bytes(event.payload_size)}`,
          ),
          bodyView(event),
        ),
      );

    const load = async (query: Record<string, string | undefined>, cursor?: string, shown: StoredEvent[] = []) => {
      replace(list, el('p', { class: 'muted' }, 'Reading the table…'));
      try {
        const page = await api<EventPage>(
          `api/connections/${connectionId}/events${qs({ ...query, cursor, limit: 20 })}`,
        );
        const events = [...shown, ...page.events];
        replace(
          list,
          el(
            'p',
            { class: 'muted' },
            query.message_id
              ? events.length
                ? 'Found:'
                : page.next_cursor
                  ? `Not in the newest files read so far (${page.files_read}).`
                  : 'No event with this message id in the table (not written yet, or written more than 30 days ago).'
              : `${events.length} events, newest first (read ${page.files_read} files this time).`,
          ),
          el(
            'ol',
            { class: 'events' },
            events.map((event) => eventItem(event, Boolean(query.message_id))),
          ),
          page.next_cursor
            ? el(
                'button',
                { type: 'button', onclick: () => void load(query, page.next_cursor ?? undefined, events) },
                query.message_id && events.length === 0 ? 'Search older files' : 'Older events',
              )
            : null,
        );
      } catch (error) {
        replace(list, errorBox(error));
      }
    };

    replace(
      main,
      el('h1', {}, `Events of ${connection.name}`),
      el(
        'p',
        {},
        el('a', { href: `#/connections/${connectionId}` }, '← the connection'),
        ' · Accepted requests as the data set keeps them, read from its files (written ones only: a request shows here once its batch is committed).',
      ),
      el(
        'form',
        {
          class: 'lookup',
          onsubmit: (event: Event) => {
            event.preventDefault();
            void load({ message_id: messageId.value.trim() || undefined, from: utc(from.value), to: utc(to.value) });
          },
        },
        el('label', { for: 'message-id' }, 'Message id'),
        messageId,
        el('label', { for: 'from' }, 'From (UTC)'),
        from,
        el('label', { for: 'to' }, 'To (UTC)'),
        to,
        el('button', { type: 'submit' }, 'Find'),
        el(
          'button',
          {
            type: 'button',
            onclick: () => {
              messageId.value = '';
              from.value = '';
              to.value = '';
              void load({});
            },
          },
          'Latest',
        ),
      ),
      list,
    );
    await load({});
    return undefined;
  };
}
