import { describe, expect, it } from 'vitest';
import { invalid } from '#shared/domain/errors.ts';
import {
  type EventFile,
  type EventQuery,
  type EventReadDeps,
  eventMatcher,
  eventsAsGroup,
  maxFilesPerRead,
  maxReadMs,
  readEvents,
  type StoredEvent,
} from '#shared/domain/monitoring/events.ts';

const base = Date.parse('2026-11-21T10:00:00.000Z');
/** Message id n, sortable as the table's UUIDs are. */
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** An event received `second` seconds after 10:00 (plus a few microseconds, as the receive clock gives). */
function event(n: number, second: number): StoredEvent {
  return {
    message_id: id(n),
    ingested_at_us: BigInt(base + second * 1000) * 1000n + 7n,
    content_type: 'application/json',
    payload_size: 9,
    payload: Buffer.from(`{"n":${n}}`).toString('base64'),
    headers: null,
  };
}

/** An event with this body (bytes as given, or the UTF-8 of a text). */
function withBody(n: number, second: number, body: string | Buffer, contentType = 'application/json'): StoredEvent {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return {
    ...event(n, second),
    content_type: contentType,
    payload_size: bytes.length,
    payload: bytes.toString('base64'),
  };
}

/** Files as the writer commits them, each with the statistics of its own rows; and staged batches not committed yet. */
function table(files: StoredEvent[][], batches: StoredEvent[][] = []) {
  const read: string[] = [];
  const snapshot: EventFile[] = files.map((rows, index) => {
    const times = rows.map((row) => Number(row.ingested_at_us / 1000n));
    const sizes = rows.map((row) => row.payload_size);
    const ids = rows.map((row) => row.message_id).sort();
    return {
      size: 1000,
      stats: {
        minValues: {
          ingested_at: new Date(Math.min(...times)).toISOString(),
          message_id: ids[0] as string,
          payload_size: Math.min(...sizes),
        },
        maxValues: {
          ingested_at: new Date(Math.max(...times)).toISOString(),
          message_id: ids.at(-1) as string,
          payload_size: Math.max(...sizes),
        },
      },
      // One row group per file, its bounds those of its rows (as a footer's statistics give them).
      groups: async () => {
        read.push(`dt=2026-11-21/part-${index}.zstd.parquet`);
        const sorted = rows.map((row) => row.ingested_at_us).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        return [
          eventsAsGroup({ min: sorted[0] as bigint, max: sorted.at(-1) as bigint, size: 1000 }, async () => rows),
        ];
      },
    };
  });
  const deps: EventReadDeps = {
    snapshotFiles: async () => snapshot,
    stagedSources: async () =>
      batches.map((rows, index) => {
        const times = rows.map((row) => Number(row.ingested_at_us / 1000n));
        return {
          oldest: Math.min(...times),
          // Staged a second after its newest envelope arrived.
          stagedAt: Math.max(...times) + 1000,
          size: 100,
          read: async () => {
            read.push(`staged-${index}`);
            return rows;
          },
        };
      }),
    cursors: memoryCursors,
  };
  return { deps, read };
}

/** Cursors as the adapter seals them, in miniature: a payload and a tag only this list makes. */
const memoryCursors: EventReadDeps['cursors'] = {
  seal: async (position) => `${Buffer.from(JSON.stringify(position)).toString('base64url')}.events`,
  open: async (cursor) => {
    const [payload, tag] = cursor.split('.');
    if (tag !== 'events' || !payload) throw invalid('Invalid cursor');
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  },
};

async function allPages(deps: EventReadDeps, query: EventQuery) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await readEvents(deps, { ...query, cursor });
    pages.push(page.events.map((e) => e.message_id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && pages.length < 100);
  return pages;
}

describe('reading events back from the table', () => {
  it('leaves out of the kept headers those the source’s signature reads now, though kept before it did', async () => {
    const stored = {
      ...event(1, 1),
      headers: { 'x-acme-digest': 'c2lnbmF0dXJl', 'content-type': 'application/json', 'x-github-event': 'push' },
    };
    const { deps } = table([[stored]]);
    const page = await readEvents({ ...deps, secretHeaders: new Set(['x-acme-digest']) }, { limit: 10 });
    expect(page.events.map((e) => e.headers)).toEqual([
      { 'content-type': 'application/json', 'x-github-event': 'push' },
    ]);
  });

  it('answers newest first across files whose times interleave, page by page, each event once', async () => {
    // Prepare: a redriven batch (file 2) holds events older than file 1's.
    const { deps } = table([
      [event(1, 1), event(2, 5), event(3, 9)],
      [event(4, 10), event(5, 12)],
      [event(6, 3), event(7, 11)],
    ]);
    // Act
    const pages = await allPages(deps, { limit: 3 });
    // Assess
    expect(pages).toEqual([[id(5), id(7), id(4)], [id(3), id(2), id(6)], [id(1)]]);
  });

  it('reads only files that can hold the time range, from inclusive and to exclusive', async () => {
    const { deps, read } = table([[event(1, 1), event(2, 2)], [event(3, 10), event(4, 20)], [event(5, 30)]]);
    const page = await readEvents(deps, {
      limit: 10,
      from: new Date(base + 2000).toISOString(),
      to: new Date(base + 20_000).toISOString(),
    });
    expect(page.events.map((e) => e.message_id)).toEqual([id(3), id(2)]);
    expect(read.sort()).toEqual(['dt=2026-11-21/part-0.zstd.parquet', 'dt=2026-11-21/part-1.zstd.parquet']);
  });

  it('finds a message id in the one file that holds it, and reads nothing for an id outside every file’s bounds', async () => {
    const { deps, read } = table([
      [event(1, 1), event(2, 2)],
      [event(10, 3), event(11, 4)],
    ]);
    const found = await readEvents(deps, { limit: 20, message_id: id(2) });
    expect(found.events.map((e) => [e.message_id, Buffer.from(e.payload, 'base64').toString()])).toEqual([
      [id(2), '{"n":2}'],
    ]);
    expect(read).toEqual(['dt=2026-11-21/part-0.zstd.parquet']);
    const missing = await readEvents(deps, { limit: 20, message_id: id(3) });
    expect(missing).toEqual({
      events: [],
      next_cursor: null,
      files_read: 0,
      bytes_read: 0,
      events_scanned: 0,
      files_left: 0,
      scanned_back_to: null,
    });
    expect(read).toHaveLength(1);
  });

  // UUID version 7 ids: 48 bits of milliseconds first, made of the ingest time.
  const v7 = (second: number, n: number) =>
    `${(base + second * 1000)
      .toString(16)
      .padStart(12, '0')
      .replace(/^(.{8})/, '$1-')}-7000-8000-${String(n).padStart(12, '0')}`;
  const at = (n: number, second: number) => ({ ...event(n, second), message_id: v7(second, n) });

  it('looks a time-ordered id up only in what was ingested since a minute before it was made (a file older is not read)', async () => {
    // File 0 is two minutes older than the ids looked up, its id range wide (a random id in it); file 1 is newer.
    const { deps, read } = table([
      [at(1, 1), { ...at(5, 2), message_id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' }],
      [at(2, 130), at(3, 131)],
    ]);
    const found = await readEvents(deps, { limit: 20, message_id: v7(130, 2) });
    expect(found.events.map((e) => e.message_id)).toEqual([v7(130, 2)]);
    // An id made at second 130 that no file holds: only the newer file could, by time and by id range.
    const missing = await readEvents(deps, { limit: 20, message_id: v7(130, 9) });
    expect(missing.events).toEqual([]);
    expect(read).toEqual(['dt=2026-11-21/part-1.zstd.parquet', 'dt=2026-11-21/part-1.zstd.parquet']);
  });

  it('finds the copy that lost the race to claim its key, ingested before its id was made', async () => {
    // Two copies of one request: the one written took its time at second 19, 1 s before the copy
    // that claimed the key first (whose id, made at second 20, both carry).
    const { deps } = table([[at(1, 1)], [{ ...event(2, 19), message_id: v7(20, 2) }]]);
    const found = await readEvents(deps, { limit: 20, message_id: v7(20, 2) });
    expect(found.events.map((e) => [e.message_id, e.received_at])).toEqual([[v7(20, 2), '2026-11-21T10:00:19.000Z']]);
  });

  it('stops at its file budget with only events no unread file can precede, and the cursor goes on', async () => {
    // Prepare: one event per file, a second apart, more files than one request reads.
    const count = maxFilesPerRead + 4;
    const files = Array.from({ length: count }, (_, n) => [event(n, n)]);
    const { deps } = table(files);
    // Act: the oldest event is the last file in newest-first order.
    const first = await readEvents(deps, { limit: 50 });
    const lookup = await allPages(deps, { limit: 50, message_id: id(0) });
    // Assess
    expect(first.files_read).toBe(maxFilesPerRead);
    expect(first.events.map((e) => e.message_id)).toEqual(
      Array.from({ length: maxFilesPerRead }, (_, k) => id(count - 1 - k)),
    );
    expect(first.next_cursor).not.toBeNull();
    expect((await allPages(deps, { limit: 50 })).flat()).toEqual(
      Array.from({ length: count }, (_, k) => id(count - 1 - k)),
    );
    expect(lookup.flat()).toEqual([id(0)]);
  });

  it('holds back an event an unread file could precede, and shows it on the next page in its place', async () => {
    // Prepare: a file spanning 50 s to 115 s, fifteen files of one event (100 s to 114 s), and
    // four files (57 s to 60 s) that one request's budget leaves unread.
    const { deps } = table([
      [event(0, 115), event(1, 50)],
      ...Array.from({ length: 15 }, (_, k) => [event(100 + k, 100 + k)]),
      ...Array.from({ length: 4 }, (_, k) => [event(57 + k, 57 + k)]),
    ]);
    // Act
    const first = await readEvents(deps, { limit: 50 });
    const all = (await allPages(deps, { limit: 50 })).flat();
    // Assess: 50 s is not shown before 57–60 s are read.
    expect(first.events.map((e) => e.message_id)).toEqual([
      id(0),
      ...Array.from({ length: 15 }, (_, k) => id(114 - k)),
    ]);
    expect(all).toEqual([
      id(0),
      ...Array.from({ length: 15 }, (_, k) => id(114 - k)),
      id(60),
      id(59),
      id(58),
      id(57),
      id(1),
    ]);
  });

  it('shows the start of a large body and says it is cut', async () => {
    const big: StoredEvent = { ...event(1, 1), payload: Buffer.alloc(40_000, 'a').toString('base64') };
    const { deps } = table([[big]]);
    const [shown] = (await readEvents(deps, { limit: 1 })).events;
    expect(Buffer.from(shown?.payload ?? '', 'base64').length).toBe(32 * 1024);
    expect(shown?.payload_truncated).toBe(true);
  });

  it('refuses a crafted cursor and an empty range with a validation error', async () => {
    const { deps } = table([[event(1, 1)]]);
    for (const query of [
      { limit: 5, cursor: 'not-a-cursor' },
      { limit: 5, cursor: Buffer.from('{"t":"1","id":""}').toString('base64url') },
      { limit: 5, cursor: await memoryCursors.seal({ t: '-1', id: '' }) },
      { limit: 5, from: '2026-11-21T11:00:00.000Z', to: '2026-11-21T10:00:00.000Z' },
    ]) {
      await expect(readEvents(deps, query)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });
});

describe('searching the bodies of events', () => {
  // Three commits' files of bodies of every kind a sender sends.
  const bodies = {
    stripeInvoice: withBody(1, 1, '{"type":"invoice.paid","data":{"object":{"id":"in_123","amount":7}}}'),
    stripeOther: withBody(2, 2, '{"type":"invoice.paid","data":{"object":{"id":"in_124","amount":7}}}'),
    githubPush: withBody(3, 3, '{"ref":"refs/heads/main","pusher":{"name":"Zoë"},"commits":[{"id":"c1"}]}'),
    xmlOrder: withBody(4, 4, '<?xml version="1.0"?><order id="in_123"><city>Zürich</city></order>', 'application/xml'),
    japanese: withBody(5, 5, '{"message":"注文 in_123 を受け付けました"}'),
    // "ü" in ISO-8859-1 is one byte 0xFC, not the two bytes of its UTF-8.
    latin1: withBody(6, 6, Buffer.from('<city>Z\u00fcrich</city>', 'latin1'), 'application/xml; charset=iso-8859-1'),
    binary: withBody(
      7,
      7,
      Buffer.from([0x00, 0xff, 0x69, 0x6e, 0x5f, 0x31, 0x32, 0x33, 0x00]),
      'application/octet-stream',
    ),
    // Two bodies, one after the other, whose ends would spell "in_123" together.
    tailOfOne: withBody(8, 8, '{"note":"in_1'),
    headOfNext: withBody(9, 9, '23"}'),
    upperCase: withBody(10, 10, '{"id":"IN_123"}'),
  };
  const files = () =>
    table([
      [bodies.stripeInvoice, bodies.stripeOther, bodies.githubPush],
      [bodies.xmlOrder, bodies.japanese, bodies.latin1, bodies.binary],
      [bodies.tailOfOne, bodies.headOfNext, bodies.upperCase],
    ]);
  const found = async (query: Partial<EventQuery>) => (await allPages(files().deps, { limit: 50, ...query })).flat();

  it('finds exactly the bodies holding the bytes, newest first, across commits, whatever the format', async () => {
    expect(await found({ contains: 'in_123' })).toEqual([id(7), id(5), id(4), id(1)]);
    expect(await found({ contains: 'Zürich' })).toEqual([id(4)]);
    expect(await found({ contains: '受け付け' })).toEqual([id(5)]);
    expect(await found({ contains: 'Zoë' })).toEqual([id(3)]);
    expect(await found({ contains: '<city>' })).toEqual([id(6), id(4)]);
    expect(await found({ contains: '"refs/heads/main"' })).toEqual([id(3)]);
  });

  it('is case-sensitive, and never finds a match spanning two bodies', async () => {
    expect(await found({ contains: 'IN_123' })).toEqual([id(10)]);
    expect(await found({ contains: 'in_123"}' })).toEqual([]);
    expect(await found({ contains: '"note":"in_1' })).toEqual([id(8)]);
  });

  it('finds the text at every offset of base64’s three-byte groups', async () => {
    // The same text shifted by 0 to 5 bytes: base64 encodes each shift differently.
    const shifted = Array.from({ length: 6 }, (_, k) => withBody(20 + k, 20 + k, `${'x'.repeat(k)}needle`));
    const { deps } = table([shifted, [withBody(30, 30, 'no match here')]]);
    const page = await readEvents(deps, { limit: 50, contains: 'needle' });
    expect(page.events.map((e) => e.message_id)).toEqual(Array.from({ length: 6 }, (_, k) => id(25 - k)));
  });

  it('matches a JSON value at a path, alone or with a text, and skips bodies that are not JSON', async () => {
    expect(await found({ json_path: '$.data.object.id', json_equals: 'in_123' })).toEqual([id(1)]);
    expect(await found({ json_path: '$.data.object.amount', json_equals: '7' })).toEqual([id(2), id(1)]);
    expect(await found({ json_path: '$.commits[0].id', json_equals: 'c1' })).toEqual([id(3)]);
    expect(await found({ json_path: '$["pusher"].name', json_equals: 'Zoë' })).toEqual([id(3)]);
    expect(await found({ json_path: '$.data.object', json_equals: '{"id":"in_123","amount":7}' })).toEqual([]);
    expect(await found({ json_path: '$.type', json_equals: 'invoice.paid', contains: 'in_124' })).toEqual([id(2)]);
  });

  it('compares the JSON value, not the bytes: escaped strings and numbers written another way match', async () => {
    const { deps } = table([
      [
        withBody(1, 1, '{"id":"in\\u005f123","city":"Z\\u00fcrich"}'),
        withBody(2, 2, '{"id":"in_123","amount":1e2}'),
        withBody(3, 3, '{"id":"in_1234","amount":100.5,"note":"in_123"}'),
        withBody(4, 4, '{"id":"12\\u0061b"}'),
      ],
    ]);
    const ids = async (json_path: string, json_equals: string) =>
      (await readEvents(deps, { limit: 10, json_path, json_equals })).events.map((e) => e.message_id);
    expect(await ids('$.id', 'in_123')).toEqual([id(2), id(1)]);
    expect(await ids('$.city', 'Zürich')).toEqual([id(1)]);
    expect(await ids('$.amount', '100')).toEqual([id(2)]);
    expect(await ids('$.amount', '100.5')).toEqual([id(3)]);
    expect(await ids('$.id', '12ab')).toEqual([id(4)]);
  });

  it('starts nothing after its time budget, and the cursor goes on from there', async () => {
    // Prepare: a clock on which each file's row group takes 4 s to read.
    const files = Array.from({ length: 6 }, (_, n) => [withBody(n, n, `{"hit":${n}}`)]);
    const { deps } = table(files);
    let now = 0;
    const slow: EventReadDeps = {
      ...deps,
      clock: () => now,
      snapshotFiles: async () =>
        (await deps.snapshotFiles()).map((file) => ({
          ...file,
          groups: async () =>
            (await file.groups()).map((group) => ({
              ...group,
              async *slices() {
                now += 4000;
                yield* group.slices();
              },
            })),
        })),
    };
    // Act
    const first = await readEvents(slow, { limit: 50, contains: 'hit' });
    const all = (await allPages(slow, { limit: 50, contains: 'hit' })).flat();
    // Assess: 0 s, 4 s and 8 s are under the budget; at 12 s no file starts.
    expect(maxReadMs).toBe(10_000);
    expect(first.files_read).toBe(3);
    expect(first.events.map((e) => e.message_id)).toEqual([id(5), id(4), id(3)]);
    expect(all).toEqual([id(5), id(4), id(3), id(2), id(1), id(0)]);
  });

  it('skips files whose bodies are all shorter than the text, by their statistics', async () => {
    const { deps, read } = table([
      [withBody(1, 1, 'short'), withBody(2, 2, 'tiny')],
      [withBody(3, 3, `${'a'.repeat(40)}needle-of-some-length`)],
    ]);
    const page = await readEvents(deps, { limit: 10, contains: 'needle-of-some-length' });
    expect(page.events.map((e) => e.message_id)).toEqual([id(3)]);
    expect(read).toEqual(['dt=2026-11-21/part-1.zstd.parquet']);
  });

  it('goes on by cursor when its budget runs out first, says how far back it looked, and finds each match once', async () => {
    // Prepare: one file per second, a match in every fifth.
    const count = maxFilesPerRead * 2 + 3;
    const files = Array.from({ length: count }, (_, n) => [
      withBody(n, n, n % 5 === 0 ? `{"hit":${n}}` : `{"miss":${n}}`),
    ]);
    const { deps } = table(files);
    // Act
    const first = await readEvents(deps, { limit: 50, contains: '"hit"' });
    const all = (await allPages(deps, { limit: 50, contains: '"hit"' })).flat();
    // Assess: the first request read the newest 16 files (seconds 34 down to 19).
    expect(first.events.map((e) => e.message_id)).toEqual([id(30), id(25), id(20)]);
    expect(first).toMatchObject({
      files_read: maxFilesPerRead,
      bytes_read: maxFilesPerRead * 1000,
      events_scanned: maxFilesPerRead,
      files_left: count - maxFilesPerRead,
      // The newest unread file ends at 18 s; statistics keep milliseconds, so the claim stops just after.
      scanned_back_to: new Date(base + 18_001).toISOString(),
    });
    expect(first.next_cursor).not.toBeNull();
    expect(all).toEqual([id(30), id(25), id(20), id(15), id(10), id(5), id(0)]);
  });

  it('refuses a search of no bytes or over 1,000 bytes, and a JSON path without its value', async () => {
    const { deps } = table([[event(1, 1)]]);
    for (const query of [
      { limit: 5, contains: '' },
      { limit: 5, contains: 'é'.repeat(501) },
      { limit: 5, json_path: '$.a' },
      { limit: 5, json_equals: 'x' },
      { limit: 5, json_path: '$.a', json_equals: 'x'.repeat(1001) },
    ]) {
      await expect(readEvents(deps, query)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    expect((await readEvents(deps, { limit: 5, contains: 'é'.repeat(500) })).events).toEqual([]);
  });

  it('offers its matcher to any source of events: a body at a time, decoded from base64', () => {
    const matcher = eventMatcher({ contains: 'in_123' });
    expect(matcher?.({ payload: Buffer.from('order in_123').toString('base64'), headers: null })).toBe(true);
    expect(matcher?.({ payload: Buffer.from('aW5fMTIz').toString('base64'), headers: null })).toBe(false);
    expect(eventMatcher({})).toBeNull();
  });
});

describe('events not committed yet', () => {
  it('lists staged envelopes as pending among committed ones, newest first, page by page, each once', async () => {
    const { deps } = table(
      [[event(1, 1), event(2, 5)], [event(3, 9)]],
      [
        [event(4, 10), event(5, 12)],
        [event(6, 11), event(7, 3)],
      ],
    );
    const pages = await allPages(deps, { limit: 3 });
    expect(pages).toEqual([[id(5), id(6), id(4)], [id(3), id(2), id(7)], [id(1)]]);
    const first = await readEvents(deps, { limit: 7 });
    expect(first.events.map((e) => [e.message_id, e.pending])).toEqual([
      [id(5), true],
      [id(6), true],
      [id(4), true],
      [id(3), false],
      [id(2), false],
      [id(7), true],
      [id(1), false],
    ]);
  });

  it('shows an envelope both staged and committed (its commit being recorded) once, as committed; one staged twice once', async () => {
    const { deps } = table([[event(1, 1), event(2, 2)]], [[event(2, 2), event(3, 3)], [event(3, 3)]]);
    const page = await readEvents(deps, { limit: 10 });
    expect(page.events.map((e) => [e.message_id, e.pending])).toEqual([
      [id(3), true],
      [id(2), false],
      [id(1), false],
    ]);
    // Three envelopes, each counted once however many times it was read.
    expect(page.events_scanned).toBe(3);
  });

  it('finds a staged envelope by its message id, and searches staged bodies as committed ones', async () => {
    const { deps } = table(
      [[withBody(1, 1, '<order id="7"/>', 'application/xml')]],
      [[withBody(2, 2, '<order id="8"/>', 'application/xml'), withBody(3, 3, '{"order":8}')]],
    );
    const found = await readEvents(deps, { limit: 10, message_id: id(2) });
    expect(found.events.map((e) => [e.message_id, e.pending])).toEqual([[id(2), true]]);
    const searched = await readEvents(deps, { limit: 10, contains: 'id="' });
    expect(searched.events.map((e) => [e.message_id, e.pending])).toEqual([
      [id(2), true],
      [id(1), false],
    ]);
  });
});
