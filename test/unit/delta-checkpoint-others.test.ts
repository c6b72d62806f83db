/**
 * A checkpoint Tributary writes on a table other engines write to carries everything they set. Each
 * case opens a real table at the version of its own engine's checkpoint, writes Tributary's
 * checkpoint of that state, and has DuckDB (read_parquet, not our reader) read both files: what the
 * protocol requires a checkpoint to hold must be the same in ours as in theirs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSnapshot } from '#delta/kernel/snapshot.ts';
import { checkpointContent } from '#delta/operations/checkpoint.ts';
import { encodeCheckpoint } from '#delta/parquet/checkpoint-writer.ts';
import { fixturesDirectory, fixtureTable } from '../support/delta-fixtures.ts';

let directory: string;
let duck: Awaited<ReturnType<Awaited<ReturnType<typeof DuckDBInstance.create>>['connect']>>;
beforeAll(async () => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'checkpoints-'));
  duck = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => duck.closeSync());

const query = async (sql: string) => (await duck.runAndReadAll(sql)).getRowObjectsJson();

/** Tributary's checkpoint of the table at `version`, written to a file DuckDB can read. */
async function ourCheckpoint(name: string, version: number): Promise<string> {
  const { state } = await openSnapshot(fixtureTable(name).reader, { version });
  const file = path.join(directory, `${name}-${version}.parquet`);
  // "now" at the table's own time, so that every tombstone theirs kept is within the retention.
  const now = Math.max(...[...state.tombstones.values()].map((remove) => remove.deletionTimestamp), 0);
  writeFileSync(file, encodeCheckpoint(checkpointContent(state, now)));
  return file;
}

const sorted = <T>(rows: T[]) => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

/** What each checkpoint holds, as DuckDB reads it. */
async function holds(file: string) {
  const from = `read_parquet('${file}')`;
  const [protocol] = await query(`SELECT to_json(protocol) AS p FROM ${from} WHERE protocol IS NOT NULL`);
  const hasColumn = async (column: string) =>
    (await query(`DESCRIBE SELECT * FROM ${from}`)).some((row) => row.column_name === column);
  const fileColumns = async (action: 'add' | 'remove') => {
    const described = String((await query(`DESCRIBE SELECT ${action} FROM ${from}`))[0]?.column_type);
    const optional = ['baseRowId', 'defaultRowCommitVersion', 'tags', 'clusteringProvider'].filter((column) =>
      described.includes(`${column} `),
    );
    const dv = described.includes('deletionVector')
      ? `, ${action}.deletionVector.storageType AS dvType, ${action}.deletionVector.pathOrInlineDv AS dv, ${action}.deletionVector."offset" AS dvOffset, ${action}.deletionVector.sizeInBytes AS dvSize, ${action}.deletionVector.cardinality AS dvCardinality`
      : '';
    const rows = await query(
      `SELECT ${action}.path AS path, ${action}.size AS size${optional.map((column) => `, to_json(${action}.${column}) AS ${column}`).join('')}${dv} FROM ${from} WHERE ${action} IS NOT NULL`,
    );
    return sorted(
      rows.map((row) => ({
        ...row,
        // A missing column reads as null, as the protocol says.
        baseRowId: row.baseRowId ?? 'null',
        defaultRowCommitVersion: row.defaultRowCommitVersion ?? 'null',
        tags: row.tags === undefined || row.tags === 'null' ? null : JSON.parse(String(row.tags)),
        clusteringProvider: row.clusteringProvider ?? 'null',
        dvType: row.dvType ?? null,
        dv: row.dv ?? null,
        dvOffset: row.dvOffset ?? null,
        dvSize: row.dvSize ?? null,
        dvCardinality: row.dvCardinality ?? null,
      })),
    );
  };
  return {
    protocol: JSON.parse(String(protocol?.p)),
    domains: (await hasColumn('domainMetadata'))
      ? sorted(
          await query(
            `SELECT domainMetadata.domain AS domain, domainMetadata.configuration AS configuration FROM ${from} WHERE domainMetadata IS NOT NULL AND NOT domainMetadata.removed`,
          ),
        )
      : [],
    adds: await fileColumns('add'),
    removes: (await query(`SELECT count(remove) AS n FROM ${from}`))[0]?.n === '0' ? [] : await fileColumns('remove'),
  };
}

const theirs = (name: string, file: string) => path.join(fixturesDirectory, name, '_delta_log', file);

describe('a checkpoint Tributary writes on a table others write', () => {
  it('keeps the protocol features, the domains, row ids and tags a Databricks checkpoint has (table-with-domain-metadata)', async () => {
    const ours = await holds(await ourCheckpoint('table-with-domain-metadata', 108));
    const databricks = await holds(theirs('table-with-domain-metadata', '00000000000000000108.checkpoint.parquet'));
    expect(ours.protocol).toEqual(databricks.protocol);
    expect(ours.domains).toEqual(databricks.domains);
    expect(ours.domains).toHaveLength(3);
    expect(ours.adds).toEqual(databricks.adds);
  });

  it('keeps every deletion vector, on live files and tombstones, as Spark\u2019s checkpoint has them (dv-partitioned-with-checkpoint)', async () => {
    const ours = await holds(await ourCheckpoint('dv-partitioned-with-checkpoint', 10));
    const spark = await holds(theirs('dv-partitioned-with-checkpoint', '00000000000000000010.checkpoint.parquet'));
    expect(ours.protocol).toEqual(spark.protocol);
    const files = (rows: Record<string, unknown>[]) =>
      rows.map(({ path: file, size, dvType, dv, dvOffset, dvSize, dvCardinality }) => ({
        file,
        size,
        dvType,
        dv,
        dvOffset,
        dvSize,
        dvCardinality,
      }));
    expect(files(ours.adds)).toEqual(files(spark.adds));
    expect(files(ours.adds).filter((row) => row.dv !== null).length).toBeGreaterThan(0);
    expect(files(ours.removes)).toEqual(files(spark.removes));
    expect(files(ours.removes).filter((row) => row.dv !== null).length).toBeGreaterThan(0);
  });

  it('follows the V2 spec on a table with v2 checkpoints: one checkpointMetadata row with its version', async () => {
    const file = await ourCheckpoint('v2-checkpoint-parquet', 2);
    expect(
      await query(
        `SELECT checkpointMetadata.version AS version FROM read_parquet('${file}') WHERE checkpointMetadata IS NOT NULL`,
      ),
    ).toEqual([{ version: '2' }]);
    expect((await holds(file)).protocol).toEqual({
      minReaderVersion: 3,
      minWriterVersion: 7,
      readerFeatures: ['v2Checkpoint'],
      writerFeatures: ['v2Checkpoint', 'appendOnly', 'invariants'],
    });
  });
});
