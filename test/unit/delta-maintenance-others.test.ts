/**
 * Tributary's maintenance (compaction, vacuum) on real tables another engine wrote, with deletion
 * vectors: rows a DV deleted stay deleted after a rewrite, and vacuum never deletes a file a live add
 * still names. The truths: the code that generated each table (its rows), DuckDB reading the files
 * compaction wrote, and the commits read by hand.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { TableNotWritable } from '#delta/errors.ts';
import { deletionVectorFile } from '#delta/kernel/deletion-vectors.ts';
import { logFileName } from '#delta/kernel/log.ts';
import { openSnapshot } from '#delta/kernel/snapshot.ts';
import { type MaintenanceDeps, maintainTable } from '#delta/operations/maintenance.ts';
import type { CommitDeps } from '#delta/operations/transaction.ts';
import { vacuum } from '#delta/operations/vacuum.ts';
import { rewriteFiles } from '#delta/parquet/compaction.ts';
import { fixtureTable, liveRows } from '../support/delta-fixtures.ts';
import { writerOf } from '../support/memory-table.ts';

const day = 86_400_000;

function maintenance(name: string, now: number) {
  const { table, reader } = fixtureTable(name);
  const commit: CommitDeps = writerOf(
    table,
    {},
    { decodeCheckpoint: reader.decodeCheckpoint, now: () => new Date(now) },
  );
  const deps: MaintenanceDeps = {
    commit,
    reader,
    rewrite: (sources, targetSize, newPath) => rewriteFiles(table.storage, sources, targetSize, newPath),
    now: () => new Date(now),
  };
  return { table, reader, deps };
}

/**
 * dv-partitioned-with-checkpoint holds (x % 10, x, "foo" + x % 5) for x in 0..49, and version v
 * (1 to 15) deleted x = 2(v - 1): at version v, the even x up to 2(v - 1) are gone.
 */
const expectedRows = (version: number) =>
  Array.from({ length: 50 }, (_, x) => x)
    .filter((x) => !(x % 2 === 0 && x <= 2 * (version - 1)))
    .map((x) => `${x % 10}|${x}|foo${x % 5}`)
    .sort();

/** The table as it was at `version`: the later commits and checkpoint are not there yet. */
function truncate(objects: Map<string, unknown>, version: number) {
  for (const key of [...objects.keys()]) {
    const match = /^_delta_log\/(\d{20})\./.exec(key);
    if ((match && Number(match[1]) > version) || key === '_delta_log/_last_checkpoint') objects.delete(key);
  }
}

describe('maintenance on tables other engines write', () => {
  it('compacts files with deletion vectors without bringing their deleted rows back, and removes each logical file by its DV', async () => {
    // At version 8, five files with a DV share their partition with another file.
    const { table, reader, deps } = maintenance('dv-partitioned-with-checkpoint', Date.parse('2023-07-07T00:00:00Z'));
    truncate(table.objects, 8);
    const before = (await openSnapshot(reader)).state;
    expect(before.version).toBe(8);
    // Partitions with two files or more are compacted (minFiles 2); a partition's single file stays as it is.
    const filesPer = new Map<string, number>();
    for (const file of before.files.values())
      filesPer.set(String(file.partitionValues.part), (filesPer.get(String(file.partitionValues.part)) ?? 0) + 1);
    const compacted = (file: { partitionValues: Record<string, string | null> }) =>
      (filesPer.get(String(file.partitionValues.part)) ?? 0) >= 2;
    const withDv = [...before.files.values()]
      .filter((file) => file.deletionVector && compacted(file))
      .map((file) => file.path);
    expect(withDv.length).toBeGreaterThan(0);

    const report = await maintainTable(deps, 'dv', () => ({ minFiles: 2, expiry: null }));
    expect(report.versions.length).toBeGreaterThan(0);
    const after = (await openSnapshot(reader)).state;
    expect([...after.files.values()].filter((file) => file.deletionVector && compacted(file))).toEqual([]);
    expect((await liveRows(table, after)).map((row) => `${row.partition.part}|${row.col1}|${row.col2}`).sort()).toEqual(
      expectedRows(8),
    );

    // DuckDB reads the files compaction wrote: no deleted row in them.
    const directory = mkdtempSync(path.join(os.tmpdir(), 'compacted-'));
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    const rows: string[] = [];
    const written = [...after.files.values()].filter((file) => !before.files.has(file.path));
    expect(written.length).toBe(report.filesAdded);
    for (const file of written) {
      const local = path.join(directory, `${rows.length}-${path.basename(file.path)}`);
      writeFileSync(local, await table.storage.get(file.path));
      const read = await duck.runAndReadAll(`SELECT col1, col2 FROM read_parquet('${local}')`);
      for (const row of read.getRowObjectsJson()) rows.push(`${file.partitionValues.part}|${row.col1}|${row.col2}`);
    }
    expect(rows.sort()).toEqual(
      expectedRows(8).filter((row) => compacted({ partitionValues: { part: row.split('|')[0] as string } })),
    );

    // The commits name each removed file with the DV it had (read by hand, not by our parser).
    const removedDvs = new Map<string, unknown>();
    for (const version of report.versions)
      for (const line of (await table.storage.get(logFileName(version))).toString('utf8').trim().split('\n')) {
        const action = JSON.parse(line) as { remove?: { path: string; deletionVector?: unknown } };
        if (action.remove) removedDvs.set(decodeURIComponent(action.remove.path), action.remove.deletionVector ?? null);
      }
    for (const file of withDv) expect(removedDvs.get(file), file).toEqual(before.files.get(file)?.deletionVector);
  });

  it('vacuum keeps every file a live add names, its DV file included, though older tombstones name the same path', async () => {
    // The DELETEs of 2023 removed (path, no DV) and re-added (path, DV): those tombstones are long expired.
    const { table, reader, deps } = maintenance('dv-partitioned-with-checkpoint', Date.parse('2026-11-21T00:00:00Z'));
    const { state } = await openSnapshot(reader);
    const named = [...state.files.values()].flatMap((file) => [
      file.path,
      ...(file.deletionVector ? [deletionVectorFile(file.deletionVector) as string] : []),
    ]);
    const report = await maintainTable(deps, 'dv', () => ({ minFiles: 1_000_000, expiry: null }));
    expect(report.filesVacuumed).toBeGreaterThan(0);
    expect(named.filter((key) => !table.objects.has(key))).toEqual([]);
    expect((await liveRows(table, (await openSnapshot(reader)).state)).map((row) => row.col1)).toHaveLength(35);
    // What the expired tombstones alone named is gone: the DV files of earlier versions of a file.
    const tombstoned = [...state.tombstones.values()]
      .map((remove) => (remove.deletionVector ? deletionVectorFile(remove.deletionVector) : null))
      .filter((key): key is string => key !== null && !named.includes(key));
    expect(tombstoned.length).toBeGreaterThan(0);
    expect(tombstoned.filter((key) => table.objects.has(key))).toEqual([]);
  });

  it('vacuum sweeps stray files beside expired ones, and leaves hidden files, change data and other directories alone', async () => {
    const { table, deps } = maintenance('cdc_ict_table', Date.parse('2027-01-01T00:00:00Z'));
    const old = { bytes: Buffer.from('x'), lastModified: 0 };
    // Beside the files version 2 and 3 removed: a file no version names (a writer that stopped before
    // its commit), a Hadoop checksum and a staging directory (hidden), and elsewhere a file of the tenant's.
    table.objects.set('birthyear=1995/part-99999-stray.c000.snappy.parquet', old);
    table.objects.set('birthyear=1995/.part-00001-3af00d15-974f-4ecb-ab9a-46e29b2c75dd.c000.snappy.parquet.crc', old);
    table.objects.set('birthyear=1995/_staging/part-0.parquet', old);
    table.objects.set('notes/readme.txt', old);
    const changeData = [...table.objects.keys()].filter((key) => key.startsWith('_change_data/'));
    const report = await maintainTable(deps, 'cdc', () => ({ minFiles: 1_000_000, expiry: null }));
    expect(table.objects.has('birthyear=1995/part-99999-stray.c000.snappy.parquet')).toBe(false);
    expect(
      [
        'birthyear=1995/.part-00001-3af00d15-974f-4ecb-ab9a-46e29b2c75dd.c000.snappy.parquet.crc',
        'birthyear=1995/_staging/part-0.parquet',
        'notes/readme.txt',
        logFileName(3),
        ...changeData,
      ].filter((key) => !table.objects.has(key)),
    ).toEqual([]);
    expect(report.filesVacuumed).toBeGreaterThan(1);
  });

  it('vacuum leaves a stray file younger than a week, whatever retention the table sets: a writer may not have committed it yet', async () => {
    const now = Date.parse('2027-01-01T00:00:00Z');
    const { table, reader } = maintenance('cdc_ict_table', now);
    // Another writer set the tombstones' retention to nothing; a Spark job wrote a file hours ago, its commit to come.
    const { state } = await openSnapshot(reader);
    table.objects.set('birthyear=1995/part-99998-in-flight.c000.snappy.parquet', {
      bytes: Buffer.from('x'),
      lastModified: now - 6 * 3_600_000,
    });
    table.objects.set('birthyear=1995/part-99999-stray.c000.snappy.parquet', {
      bytes: Buffer.from('x'),
      lastModified: now - 8 * day,
    });
    await vacuum({ reader, storage: table.storage, now: () => new Date(now) }, state, 0);
    expect([
      table.objects.has('birthyear=1995/part-99998-in-flight.c000.snappy.parquet'),
      table.objects.has('birthyear=1995/part-99999-stray.c000.snappy.parquet'),
    ]).toEqual([true, false]);
  });

  it('refuses to touch a table whose features Tributary does not implement, before deleting anything', async () => {
    const { table, deps } = maintenance('table_with_liquid_clustering', Date.parse('2027-01-01T00:00:00Z') + 30 * day);
    const objects = table.objects.size;
    await expect(maintainTable(deps, 'liquid', () => ({ minFiles: 2, expiry: null }))).rejects.toThrow(
      TableNotWritable,
    );
    expect(table.objects.size).toBe(objects);
  });
});
