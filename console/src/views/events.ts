import { type Answer, api, type Connection, qs, type Schemas, type Stats, type TableProperties } from '../api.ts';
import { bodyView } from '../body.ts';
import { age, bytes, counted, el, errorBox, replace, when } from '../dom.ts';
import { pollMs, type Stop } from '../view.ts';

type StoredEvent = Schemas['Event'];
type EventPage = Answer<'/api/connections/{connection_id}/events'>;

/** What the requests of one search have looked at so far, added up page by page. */
interface Scanned {
  files: number;
  bytes: number;
  events: number;
}

/** How far a search has looked, in words: a partial answer says so, and how much is left. */
function scanText(page: EventPage, scanned: Scanned): string {
  const looked = `${counted(scanned.events, 'event')} in ${counted(scanned.files, 'file')} (${bytes(scanned.bytes)})`;
  return page.next_cursor
    ? `Looked at ${looked}, back to ${when(page.scanned_back_to)}; ${counted(page.files_left, 'file')} not read yet.`
    : `Looked at ${looked}: the whole range.`;
}

/** `datetime-local` values are read as UTC, as every time in the console is shown. */
const utc = (value: string) => (value ? new Date(`${value}:00.000Z`).toISOString() : undefined);

/** When a pending event reaches the table, in words (the table's freshness target in seconds, if known). */
function commitsWithin(target: number | null): string {
  if (target === null) return 'within the table’s freshness target of its arrival';
  if (target === 0) return 'within seconds of its arrival (the table’s freshness target is 0)';
  return `within the table’s freshness target (${age(target)}) of its arrival`;
}

/** What changes when staged events are committed (or dead-lettered): the list is read again then. */
const commitMark = (stats: Stats) => `${stats.last_write_at}|${stats.dead_lettered}|${stats.staged_rows === 0}`;

export function eventsView(connectionId: string) {
  return async (main: HTMLElement): Promise<Stop> => {
    const connection = await api<Connection>(`api/connections/${connectionId}`);
    // The one live region: a polite summary, rather than the whole list read out at each answer.
    const status = el('p', { class: 'muted', id: 'events-summary', role: 'status' });
    const list = el('div');
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

    const eventItem = (event: StoredEvent, open: boolean, target: number | null) =>
      el(
        'li',
        { 'data-message-id': event.message_id },
        el(
          'details',
          { open },
          el(
            'summary',
            {},
            el('code', {}, event.message_id),
            ' ',
            event.pending
              ? el('span', { class: 'badge pending' }, 'Pending')
              : el('span', { class: 'badge committed' }, 'Committed'),
            ` · ${when(event.received_at)}${event.event_type === null ? '' : ` · ${event.event_type}`} · ${event.content_type ?? 'no content type'} · ${bytes(event.payload_size)}`,
          ),
          event.pending
            ? el(
                'p',
                { class: 'pending-note' },
                `Pending: accepted and staged, kept safe but not in the data set’s table yet. It is committed to the table ${commitsWithin(target)}; this list marks it committed then.`,
              )
            : null,
          bodyView(event),
        ),
      );

    /** The table's freshness target, asked once, when pending events first show (null if it cannot be read). */
    let target: Promise<number | null> | null = null;
    const freshnessTarget = () => {
      target ??= api<TableProperties>(`api/data-sets/${connection.data_set_id}/table-properties`).then(
        (properties) => properties.effective.freshness_seconds,
        () => null,
      );
      return target;
    };

    // While the newest page shows pending events, the connection's figures (cheap: no table read)
    // are watched, and the list is read again once a commit lands.
    let watch: ReturnType<typeof setInterval> | undefined;
    const stopWatching = () => {
      clearInterval(watch);
      watch = undefined;
    };
    /** Only the answer to the latest request is shown. */
    let generation = 0;

    const load = async (
      query: Record<string, string | undefined>,
      cursor?: string,
      shown: StoredEvent[] = [],
      before: Scanned = { files: 0, bytes: 0, events: 0 },
      quiet = false,
    ) => {
      const mine = ++generation;
      stopWatching();
      if (!quiet) {
        replace(status, 'Reading the table…');
        replace(list);
      }
      try {
        // Read before the events, so that a commit landing meanwhile shows as a change.
        const mark = cursor ? null : commitMark(await api<Stats>(`api/connections/${connectionId}/stats`));
        const page = await api<EventPage>(
          `api/connections/${connectionId}/events${qs({ ...query, cursor, limit: 20 })}`,
        );
        const events = [...shown, ...page.events];
        const pending = events.filter((event) => event.pending).length;
        const within = pending > 0 ? await freshnessTarget() : null;
        if (mine !== generation) return;
        const scanned = {
          files: before.files + page.files_read,
          bytes: before.bytes + page.bytes_read,
          events: before.events + page.events_scanned,
        };
        const searching = Boolean(query.contains || query.json_path);
        const ofThem = pending > 0 ? `, ${pending} pending` : '';
        replace(
          status,
          query.message_id
            ? events.length
              ? 'Found:'
              : page.next_cursor
                ? `Not in the newest files read so far (${page.files_read}).`
                : 'No event with this message id: not accepted, not staged yet (about a second after its 202), or a failed delivery (see the connection).'
            : searching
              ? `${events.length} matching ${events.length === 1 ? 'event' : 'events'}, newest first${ofThem}. ${scanText(page, scanned)}`
              : `${counted(events.length, 'event')}, newest first${ofThem} (read ${counted(page.files_read, 'file')} this time).`,
        );
        const open = new Set(
          [...list.querySelectorAll('li[data-message-id] > details[open]')].map(
            (details) => (details.parentElement as HTMLElement).dataset.messageId,
          ),
        );
        replace(
          list,
          el(
            'ol',
            { class: 'events', 'aria-label': 'Events' },
            events.map((event) => eventItem(event, Boolean(query.message_id) || open.has(event.message_id), within)),
          ),
          page.next_cursor
            ? el(
                'button',
                { type: 'button', onclick: () => void load(query, page.next_cursor ?? undefined, events, scanned) },
                (query.message_id && events.length === 0) || searching ? 'Search older files' : 'Older events',
              )
            : null,
        );
        if (mark !== null && pending > 0) {
          watch = setInterval(async () => {
            try {
              const now = commitMark(await api<Stats>(`api/connections/${connectionId}/stats`));
              if (now !== mark && mine === generation) void load(query, undefined, [], undefined, true);
            } catch {
              // The next tick asks again; a key that stopped working has already signed the console out.
            }
          }, pollMs);
        }
      } catch (error) {
        if (mine !== generation) return;
        replace(status);
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
        ' · Accepted requests, newest first: those in the data set’s table, read from its files, and those accepted but not committed to it yet, marked Pending (staged, they reach the table within its freshness target; this list follows them until they do).',
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
      status,
      list,
    );
    await load({});
    return () => {
      generation++;
      stopWatching();
    };
  };
}
