import { describe, expect, it } from 'vitest';
import type { AddFile } from '#shared/domain/delta/log.ts';
import { invalid } from '#shared/domain/errors.ts';
import {
  type EventQuery,
  type EventReadDeps,
  maxFilesPerRead,
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
  };
}

/** Files as the writer commits them, each with the statistics of its own rows. */
function table(files: StoredEvent[][]) {
  const adds: AddFile[] = files.map((rows, index) => {
    const times = rows.map((row) => Number(row.ingested_at_us / 1000n));
    const ids = rows.map((row) => row.message_id).sort();
    return {
      path: `dt=2026-11-21/part-${index}.zstd.parquet`,
      partitionValues: { dt: '2026-11-21' },
      size: 1000,
      modificationTime: 0,
      dataChange: true,
      stats: JSON.stringify({
        numRecords: rows.length,
        minValues: { ingested_at: new Date(Math.min(...times)).toISOString(), message_id: ids[0] as string },
        maxValues: { ingested_at: new Date(Math.max(...times)).toISOString(), message_id: ids.at(-1) as string },
        nullCount: {},
      }),
    };
  });
  const read: string[] = [];
  const deps: EventReadDeps = {
    snapshotFiles: async () => adds,
    readEvents: async (file) => {
      read.push(file.path);
      return files[adds.indexOf(file)] ?? [];
    },
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
    expect(missing).toEqual({ events: [], next_cursor: null, files_read: 0 });
    expect(read).toHaveLength(1);
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
