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
  bytes_read: number;
  events_scanned: number;
  files_left: number;
  scanned_back_to: string | null;
}

/** What the requests of one search have looked at so far, added up page by page. */
interface Scanned {
  files: number;
  bytes: number;
  events: number;
}

/** How far a search has looked, in words: a partial answer says so, and how much is left. */
function scanText(page: EventPage, scanned: Scanned): string {
  const looked = `${scanned.events} events in ${scanned.files} files (${bytes(scanned.bytes)})`;
  return page.next_cursor
    ? `Looked at ${looked}, back to ${when(page.scanned_back_to)}; ${page.files_left} files not read yet.`
    : `Looked at ${looked}: the whole range.`;
}

/** `datetime-local` values are read as UTC, as every time in the console is shown. */
const utc = (value: string) => (value ? new Date(`${value}:00.000Z`).toISOString() : undefined);

export function eventsView(connectionId: string) {
  return async (main: HTMLElement): Promise<undefined> => {
    const connection = await api<Connection>(`api/connections/${connectionId}`);
    const list = el('div', { 'aria-live': 'polite' });
    const messageId = el('input', { id: 'message-id', name: 'message-id', placeholder: 'e.g. 0b6c…', size: 38 });
    const contains = el('input', {
      id: 'contains',
      name: 'contains',
      placeholder: 'e.g. in_123',
      maxlength: 1000,
      'aria-describedby': 'contains-help',
    });
    const jsonPath = el('input', { id: 'json-path', name: 'json-path', placeholder: 'e.g. $.data.object.id' });
    const jsonEquals = el('input', { id: 'json-equals', name: 'json-equals', placeholder: 'e.g. in_123' });
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

    const load = async (
      query: Record<string, string | undefined>,
      cursor?: string,
      shown: StoredEvent[] = [],
      before: Scanned = { files: 0, bytes: 0, events: 0 },
    ) => {
      replace(list, el('p', { class: 'muted' }, 'Reading the table…'));
      try {
        const page = await api<EventPage>(
          `api/connections/${connectionId}/events${qs({ ...query, cursor, limit: 20 })}`,
        );
        const events = [...shown, ...page.events];
        const scanned = {
          files: before.files + page.files_read,
          bytes: before.bytes + page.bytes_read,
          events: before.events + page.events_scanned,
        };
        const searching = Boolean(query.contains || query.json_path);
        replace(
          list,
          el(
            'p',
            { class: 'muted', id: 'events-summary' },
            query.message_id
              ? events.length
                ? 'Found:'
                : page.next_cursor
                  ? `Not in the newest files read so far (${page.files_read}).`
                  : 'No event with this message id in the table (not written yet, or written more than 30 days ago).'
              : searching
                ? `${events.length} matching ${events.length === 1 ? 'event' : 'events'}, newest first. ${scanText(page, scanned)}`
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
                { type: 'button', onclick: () => void load(query, page.next_cursor ?? undefined, events, scanned) },
                (query.message_id && events.length === 0) || searching ? 'Search older files' : 'Older events',
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
        'p',
        { id: 'contains-help', class: 'muted' },
        'Body contains: the exact bytes, case-sensitive, anywhere in the body as received (JSON, XML, text or binary). JSON path and equals: a value in a JSON body, e.g. $.data.object.id equals in_123. Fields combine; each request reads up to 16 files and says how far back it looked.',
      ),
      el(
        'form',
        {
          class: 'lookup',
          onsubmit: (event: Event) => {
            event.preventDefault();
            void load({
              message_id: messageId.value.trim() || undefined,
              contains: contains.value || undefined,
              json_path: jsonPath.value.trim() || undefined,
              json_equals: jsonPath.value.trim() ? jsonEquals.value : undefined,
              from: utc(from.value),
              to: utc(to.value),
            });
          },
        },
        el('label', { for: 'message-id' }, 'Message id'),
        messageId,
        el('label', { for: 'contains' }, 'Body contains'),
        contains,
        el('label', { for: 'json-path' }, 'JSON path'),
        jsonPath,
        el('label', { for: 'json-equals' }, 'equals'),
        jsonEquals,
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
              for (const input of [messageId, contains, jsonPath, jsonEquals]) input.value = '';
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
