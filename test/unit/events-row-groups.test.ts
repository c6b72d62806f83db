/**
 * The Events view on a compacted file of many row groups: it reads the footer, then only the row
 * groups and pages a query needs, never the whole file; and its answers are DuckDB's on the same
 * file (an independent reader): the newest events, a lookup by id, a search, a time range, and every
 * page of a listing whose row groups overlap in time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import * as parquet from 'parquet-wasm';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddFile } from '#delta/kernel/log.ts';
import { decodeCheckpoint } from '#delta/parquet/checkpoint-reader.ts';
import { envelopeGroups } from '#shared/adapters/parquet/envelope-reader.ts';
import { encodeEnvelopes } from '#shared/adapters/parquet/envelope-writer.ts';
import { tableEvents } from '#shared/adapters/repositories/events.ts';
import type { Envelope } from '#shared/domain/ingest/envelope.ts';
import { type EventQuery, type EventReadDeps, readEvents } from '#shared/domain/monitoring/events.ts';
import { makeEnvelopes, seededRandom } from '../../bench/envelopes.ts';
import { memoryTable } from '../support/memory-table.ts';

const rows = 4000;
const rowsPerGroup = 200;

/** Envelopes with time-ordered ids (as the ingest door makes them), in ingest order or shuffled. */
function envelopes(shuffled: boolean): Envelope[] {
  const made = makeEnvelopes(rows).map((envelope) => ({
    ...envelope,
    message_id: uuidv7({ msecs: Number(envelope.ingested_at_us / 1000n), random: new Uint8Array(16).fill(7) }),
  }));
  if (!shuffled) return made;
  const random = seededRandom(11);
  for (let i = made.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [made[i], made[j]] = [made[j] as Envelope, made[i] as Envelope];
  }
  return made;
}

/**
 * A Tributary file re-cut into row groups of `rowsPerGroup`, as compaction writes large files (with
 * pages of 32 KB, a thirtieth of the default, so that pages are small beside a row group as they are
 * in a file of 128 MB).
 */
function compacted(list: Envelope[]) {
  const file = encodeEnvelopes(list);
  const properties = new parquet.WriterPropertiesBuilder()
    .setCompression(parquet.Compression.ZSTD)
    .setMaxRowGroupSize(rowsPerGroup)
    .setDataPageSizeLimit(32 * 1024)
    .setColumnDictionaryEnabled('payload', false)
    .setColumnStatisticsEnabled('payload', parquet.EnabledStatistics.None)
    .build();
  return { bytes: Buffer.from(parquet.writeParquet(parquet.readParquet(file.bytes), properties)), stats: file.stats };
}

const dataPath = 'dt=2026-11-21/part-00000-compacted.zstd.parquet';

/** A Delta table of that one file in memory, read through tableEvents; every range asked for noted. */
function tableOf(file: ReturnType<typeof compacted>) {
  const table = memoryTable({ jitter: false });
  table.objects.set(dataPath, { bytes: file.bytes, lastModified: 0 });
  const add: AddFile = {
    path: dataPath,
    partitionValues: { dt: '2026-11-21' },
    size: file.bytes.length,
    modificationTime: 0,
    dataChange: true,
    stats: JSON.stringify(file.stats),
  };
  const log = [
    { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
    {
      metaData: {
        id: 't',
        format: { provider: 'parquet', options: {} },
        schemaString: '{"type":"struct","fields":[]}',
        partitionColumns: ['dt'],
        configuration: {},
      },
    },
    { add },
  ];
  table.objects.set('_delta_log/00000000000000000000.json', {
    bytes: Buffer.from(log.map((line) => JSON.stringify(line)).join('\n')),
    lastModified: 0,
  });
  const ranges: [number, number][] = [];
  const storage = {
    ...table.storage,
    getRange: (key: string, start: number, end: number) => {
      ranges.push([start, end]);
      return table.storage.getRange(key, start, end);
    },
  };
  const deps: EventReadDeps = {
    ...tableEvents({ storage, decodeCheckpoint }),
    stagedSources: async () => [],
    cursors: {
      seal: async (position) => JSON.stringify(position),
      open: async (cursor) => JSON.parse(cursor),
    },
  };
  return { deps, ranges, add };
}

const bytesOf = (ranges: [number, number][]) => ranges.reduce((sum, [start, end]) => sum + end - start, 0);

let directory: string;
let duck: Awaited<ReturnType<typeof DuckDBInstance.create>>;
const ordered = compacted(envelopes(false));
const shuffled = compacted(envelopes(true));
const files = { ordered: '', shuffled: '' };

beforeAll(async () => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'events-row-groups-'));
  files.ordered = path.join(directory, 'ordered.parquet');
  files.shuffled = path.join(directory, 'shuffled.parquet');
  writeFileSync(files.ordered, ordered.bytes);
  writeFileSync(files.shuffled, shuffled.bytes);
  duck = await DuckDBInstance.create(':memory:');
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** DuckDB's answer: message id and body, newest first (received time, then id, as the view orders). */
async function duckdb(file: string, where: string, limit = rows) {
  const connection = await duck.connect();
  const read = (
    await connection.runAndReadAll(
      `SELECT message_id, payload FROM read_parquet('${file}') WHERE ${where}
       ORDER BY epoch_us(ingested_at) DESC, message_id DESC LIMIT ${limit}`,
    )
  ).getRowObjectsJson();
  connection.closeSync();
  return read.map((row) => [String(row.message_id), String(row.payload)]);
}

const answer = async (deps: EventReadDeps, query: EventQuery) =>
  (await readEvents(deps, query)).events.map((event) => [event.message_id, event.payload]);

describe('the Events view on a file of many row groups', () => {
  it('is cut into row groups with statistics, as compaction writes', () => {
    expect(ordered.bytes.length).toBeGreaterThan(1024 * 1024);
    const footer = ordered.bytes.subarray(-8);
    expect(footer.subarray(4).toString()).toBe('PAR1');
  });

  it('lists the newest events from the footer and the newest row group, not the file', async () => {
    const { deps, ranges } = tableOf(ordered);
    expect(await answer(deps, { limit: 50 })).toEqual(await duckdb(files.ordered, 'true', 50));
    // The footer (one 64 KB read), and one or two row groups' columns: well under a tenth of the file.
    expect(bytesOf(ranges)).toBeLessThan(ordered.bytes.length / 10);
    expect(ranges.length).toBeLessThanOrEqual(8);
  });

  it('looks an id up in the one row group whose statistics hold it', async () => {
    const { deps, ranges } = tableOf(ordered);
    const wanted = (await duckdb(files.ordered, 'true', 2000)).at(-1) as [string, string];
    expect(await answer(deps, { limit: 10, message_id: wanted[0] })).toEqual([wanted]);
    expect(bytesOf(ranges)).toBeLessThan(ordered.bytes.length / 10);
  });

  it('reads a time range’s row groups only', async () => {
    const { deps, ranges } = tableOf(ordered);
    const from = '2026-11-18T11:06:41.000Z';
    const to = '2026-11-18T11:06:42.000Z';
    expect(await answer(deps, { limit: 2000, from, to })).toEqual(
      await duckdb(files.ordered, `ingested_at >= '${from}' AND ingested_at < '${to}'`),
    );
    // A second of a 4-second file: six or seven of its 20 row groups.
    expect(bytesOf(ranges)).toBeLessThan(ordered.bytes.length / 3);
  });

  it('searches every body, a slice at a time: no range read is larger than a slice of bodies', async () => {
    const table = tableOf(shuffled);
    const ranges: [number, number][] = [];
    const source = {
      byteLength: shuffled.bytes.length,
      read: async (start: number, end: number) => {
        ranges.push([start, end]);
        return shuffled.bytes.subarray(start, end);
      },
    };
    // Slices of 64 KB of bodies: each row group of ~280 KB in several.
    const deps: EventReadDeps = {
      ...table.deps,
      snapshotFiles: async () =>
        (await table.deps.snapshotFiles()).map((file) => ({
          ...file,
          groups: () => envelopeGroups(source, () => false, 64 * 1024),
        })),
    };
    expect(await answer(deps, { limit: 50, contains: '"sequence":4321,' })).toEqual(
      await duckdb(files.shuffled, `contains(decode(from_base64(payload)), '"sequence":4321,')`),
    );
    const largest = Math.max(...ranges.map(([start, end]) => end - start));
    // The footer, or the pages of one slice's bodies: never the file, nor a whole row group's.
    expect(largest).toBeLessThanOrEqual(64 * 1024);
    expect(bytesOf(ranges)).toBeLessThan(2 * shuffled.bytes.length);
  });

  it('pages through row groups that overlap in time, each event once, in DuckDB’s order', async () => {
    const { deps } = tableOf(shuffled);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await readEvents(deps, { limit: 1500, cursor });
      seen.push(...page.events.map((event) => event.message_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual((await duckdb(files.shuffled, 'true')).map(([id]) => id));
  });
});
