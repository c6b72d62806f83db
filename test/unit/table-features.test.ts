/**
 * Which tables Tributary reads and writes, decided feature by feature (PROTOCOL.md "Table Features"),
 * written out as a matrix of protocols and the verdict each must get; then what a commit must carry
 * on tables with row tracking, in-commit timestamps, deletion vectors, append-only or change data
 * feed, with the expected values worked out by hand from the protocol, on real tables where one exists.
 */
import { describe, expect, it } from 'vitest';
import { CommitNotAllowed } from '#delta/errors.ts';
import { compactionSupport, prepareCommit, readSupport, writeSupport } from '#delta/kernel/features.ts';
import { type AddFile, commitContent, type Metadata, metadataAction, type Protocol } from '#delta/kernel/log.ts';
import { emptyState, openSnapshot, type TableState } from '#delta/kernel/snapshot.ts';
import { envelopeSchema } from '#shared/domain/datasets/model.ts';
import { fixtureTable } from '../support/delta-fixtures.ts';

const ours = metadataAction({
  tableId: 't',
  name: 't',
  schema: envelopeSchema,
  partitionColumns: ['dt'],
  createdTime: 0,
});
const withProperties = (configuration: Record<string, string>, metadata: Metadata = ours): Metadata => ({
  ...metadata,
  configuration: { ...metadata.configuration, ...configuration },
});
const withColumn = (column: object): Metadata => {
  const schema = JSON.parse(ours.schemaString) as { fields: object[] };
  return { ...ours, schemaString: JSON.stringify({ ...schema, fields: [...schema.fields, column] }) };
};
const features = (names: string[], readers: string[] = []): Protocol => ({
  minReaderVersion: 3,
  minWriterVersion: 7,
  readerFeatures: readers,
  writerFeatures: names,
});
const verdict = (support: { ok: true } | { ok: false; unsupported: string[] }) =>
  support.ok ? 'ok' : support.unsupported.join(',');

describe('which tables Tributary writes and reads', () => {
  // [case, protocol, metadata, write verdict, read verdict]
  const matrix: [string, Protocol, Metadata, string, string][] = [
    ['Tributary’s own table (1, 2)', { minReaderVersion: 1, minWriterVersion: 2 }, ours, 'ok', 'ok'],
    [
      'Databricks’ defaults: deletion vectors, v2 checkpoints, row tracking, domains, in-commit timestamps',
      features(
        [
          'deletionVectors',
          'v2Checkpoint',
          'rowTracking',
          'domainMetadata',
          'inCommitTimestamp',
          'appendOnly',
          'invariants',
        ],
        ['deletionVectors', 'v2Checkpoint'],
      ),
      withProperties({
        'delta.enableDeletionVectors': 'true',
        'delta.checkpointPolicy': 'v2',
        'delta.enableRowTracking': 'true',
        'delta.enableInCommitTimestamps': 'true',
      }),
      'ok',
      'ok',
    ],
    [
      'change data feed, timestamp without time zone, type widening, variant, vacuum protocol check, clustering, checkpoint protection',
      features(
        [
          'changeDataFeed',
          'timestampNtz',
          'typeWidening',
          'variantType',
          'vacuumProtocolCheck',
          'clustering',
          'domainMetadata',
          'checkpointProtection',
        ],
        ['timestampNtz', 'typeWidening', 'variantType', 'vacuumProtocolCheck'],
      ),
      withProperties({ 'delta.enableChangeDataFeed': 'true' }),
      'ok',
      'ok',
    ],
    [
      'an unknown writer feature',
      features(['deletionVectors', 'futureFeature'], ['deletionVectors']),
      ours,
      'futureFeature',
      'ok',
    ],
    [
      'an unknown reader feature',
      features(['futureFeature'], ['futureFeature']),
      ours,
      'futureFeature',
      'futureFeature',
    ],
    ['a newer protocol version', { minReaderVersion: 4, minWriterVersion: 8 }, ours, 'protocol', 'protocol'],
    [
      'column mapping by name',
      features(['columnMapping'], ['columnMapping']),
      withProperties({ 'delta.columnMapping.mode': 'name' }),
      'columnMapping',
      'columnMapping',
    ],
    ['column mapping supported but off', features(['columnMapping'], ['columnMapping']), ours, 'ok', 'ok'],
    [
      'column mapping on a legacy protocol (2, 5)',
      { minReaderVersion: 2, minWriterVersion: 5 },
      withProperties({ 'delta.columnMapping.mode': 'id' }),
      'columnMapping',
      'columnMapping',
    ],
    [
      'CHECK constraints on a legacy protocol (1, 3)',
      { minReaderVersion: 1, minWriterVersion: 3 },
      withProperties({ 'delta.constraints.positive': 'payload_size > 0' }),
      'checkConstraints',
      'ok',
    ],
    ['CHECK constraints feature without constraints', features(['checkConstraints']), ours, 'ok', 'ok'],
    [
      'a column invariant',
      features(['invariants']),
      withColumn({
        name: 'x',
        type: 'integer',
        nullable: true,
        metadata: { 'delta.invariants': '{"expression":{"expression":"x > 3"}}' },
      }),
      'invariants',
      'ok',
    ],
    [
      'a generated column',
      features(['generatedColumns']),
      withColumn({
        name: 'day',
        type: 'date',
        nullable: true,
        metadata: { 'delta.generationExpression': 'CAST(ingested_at AS DATE)' },
      }),
      'generatedColumns',
      'ok',
    ],
    [
      'an identity column',
      { minReaderVersion: 1, minWriterVersion: 6 },
      withColumn({
        name: 'id',
        type: 'long',
        nullable: true,
        metadata: { 'delta.identity.start': 1, 'delta.identity.step': 1 },
      }),
      'identityColumns',
      'ok',
    ],
    [
      'a default value on a column Tributary does not write',
      features(['allowColumnDefaults']),
      withColumn({ name: 'note', type: 'string', nullable: true, metadata: { CURRENT_DEFAULT: "'none'" } }),
      'allowColumnDefaults',
      'ok',
    ],
    [
      'Iceberg compatibility on',
      features(['icebergCompatV2', 'columnMapping'], ['columnMapping']),
      withProperties({ 'delta.enableIcebergCompatV2': 'true' }),
      'icebergCompatV2',
      'ok',
    ],
    ['Iceberg compatibility supported, off', features(['icebergCompatV2']), ours, 'ok', 'ok'],
    [
      'a catalog-managed table',
      features(['catalogManaged', 'inCommitTimestamp'], ['catalogManaged']),
      ours,
      'catalogManaged',
      'catalogManaged',
    ],
    [
      'materialised partition columns',
      features(['materializePartitionColumns']),
      ours,
      'materializePartitionColumns',
      'ok',
    ],
    ['collations', features(['collations-preview', 'domainMetadata']), ours, 'collations-preview', 'ok'],
  ];

  it.each(matrix)('%s', (_, protocol, metadata, write, read) => {
    expect({
      write: verdict(writeSupport(protocol, metadata, { schema: envelopeSchema, partitionColumns: ['dt'] })),
      read: verdict(readSupport(protocol, metadata)),
    }).toEqual({ write, read });
  });

  it('tells the tenant which feature, why, and what to do', () => {
    const support = writeSupport(features(['deletionVectors', 'futureFeature'], ['deletionVectors']), ours);
    expect(support.ok).toBe(false);
    if (support.ok) return;
    expect(support.message).toMatch(/^Tributary cannot write this Delta table: /);
    expect(support.message).toContain('"futureFeature"');
    expect(support.message).toContain('DROP FEATURE futureFeature');
    const constraints = writeSupport(
      { minReaderVersion: 1, minWriterVersion: 3 },
      withProperties({ 'delta.constraints.positive': 'payload_size > 0' }),
    );
    expect(constraints.ok ? '' : constraints.message).toContain('CHECK constraints (positive)');
  });

  it('checks the schema against the columns Tributary writes', () => {
    const options = { schema: envelopeSchema, partitionColumns: ['dt'] };
    const protocol = { minReaderVersion: 1, minWriterVersion: 2 };
    const nullableExtra = withColumn({ name: 'note', type: 'string', nullable: true, metadata: {} });
    const requiredExtra = withColumn({ name: 'note', type: 'string', nullable: false, metadata: {} });
    const widened = {
      ...ours,
      schemaString: ours.schemaString.replace(
        '{"name":"payload_size","type":"long"',
        '{"name":"payload_size","type":"decimal(20,0)"',
      ),
    };
    const repartitioned = { ...ours, partitionColumns: ['tenant_id'] };
    expect(
      [nullableExtra, requiredExtra, widened, repartitioned].map((metadata) =>
        verdict(writeSupport(protocol, metadata, options)),
      ),
    ).toEqual(['ok', 'schema', 'schema', 'schema']);
  });

  it('decides real tables as their features say (Spark, Databricks, delta-rs)', async () => {
    const decide = async (name: string) => {
      const { state } = await openSnapshot(fixtureTable(name).reader);
      return {
        write: verdict(writeSupport(state.protocol, state.metadata)),
        read: verdict(readSupport(state.protocol, state.metadata)),
      };
    };
    expect(
      Object.fromEntries(
        await Promise.all(
          [
            'dv-partitioned-with-checkpoint',
            'v2-checkpoint-json',
            'cdc_ict_table',
            'table-with-domain-metadata',
            'table_with_liquid_clustering',
          ].map(async (name) => [name, await decide(name)]),
        ),
      ),
    ).toEqual({
      'dv-partitioned-with-checkpoint': { write: 'ok', read: 'ok' },
      'v2-checkpoint-json': { write: 'ok', read: 'ok' },
      cdc_ict_table: { write: 'ok', read: 'ok' },
      'table-with-domain-metadata': { write: 'ok', read: 'ok' },
      // "liquid" is Databricks' preview name, before the protocol named the feature "clustering".
      table_with_liquid_clustering: { write: 'liquid', read: 'ok' },
    });
  });

  it('does not compact a table whose row tracking is enabled (stable row ids would change)', () => {
    const protocol = features(['rowTracking', 'domainMetadata']);
    expect(verdict(compactionSupport(protocol, ours))).toBe('ok');
    expect(verdict(compactionSupport(protocol, withProperties({ 'delta.enableRowTracking': 'true' })))).toBe(
      'rowTracking',
    );
  });
});

const newFile = (path: string, numRecords: number, dataChange = true): AddFile => ({
  path,
  partitionValues: { dt: '2026-11-21' },
  size: 100,
  modificationTime: 1,
  dataChange,
  stats: JSON.stringify({ numRecords, minValues: {}, maxValues: {}, nullCount: {} }),
});

describe('what a commit carries for the features a table has', () => {
  it('assigns row ids above the high-water mark and moves it (Databricks table with row tracking, mark 9)', async () => {
    const { state } = await openSnapshot(fixtureTable('table_with_liquid_clustering').reader);
    const prepared = prepareCommit(
      state,
      { adds: [newFile('a.parquet', 3), newFile('b.parquet', 4), newFile('empty.parquet', 0)], removes: [] },
      { version: 1, now: 5 },
    );
    expect(prepared.adds.map((add) => [add.baseRowId, add.defaultRowCommitVersion])).toEqual([
      [10, 1],
      [13, 1],
      [17, 1],
    ]);
    expect(prepared.domainMetadata.map((domain) => [domain.domain, JSON.parse(domain.configuration)])).toEqual([
      ['delta.rowTracking', { rowIdHighWaterMark: 16, domainName: 'delta.rowTracking' }],
    ]);
    // Suspended: no ids, no mark.
    const suspended: TableState = {
      ...state,
      metadata: withProperties({ 'delta.rowTrackingSuspended': 'true' }, state.metadata as Metadata),
    };
    const untracked = prepareCommit(
      suspended,
      { adds: [newFile('a.parquet', 3)], removes: [] },
      { version: 1, now: 5 },
    );
    expect([untracked.adds[0]?.baseRowId, untracked.domainMetadata]).toEqual([undefined, []]);
  });

  it('gives each commit an in-commit timestamp after the previous one (Spark table with in-commit timestamps)', async () => {
    const { state } = await openSnapshot(fixtureTable('cdc_ict_table').reader);
    const previous = 1_783_874_213_881;
    const draft = { adds: [newFile('a.parquet', 1)], removes: [] };
    expect(prepareCommit(state, draft, { version: 4, now: previous - 60_000 }).commitInfo).toEqual({
      inCommitTimestamp: previous + 1,
    });
    expect(prepareCommit(state, draft, { version: 4, now: previous + 5 }).commitInfo).toEqual({
      inCommitTimestamp: previous + 5,
    });
    expect(prepareCommit(emptyState(), draft, { version: 0, now: 7 }).commitInfo).toEqual({});
  });

  it('names the deletion vector of the file a remove takes out (else that logical file stays live)', async () => {
    const { state } = await openSnapshot(fixtureTable('log-replay-dv-key-cases').reader);
    const live = [...state.files.values()][0] as AddFile;
    const prepared = prepareCommit(
      state,
      {
        adds: [],
        removes: [
          {
            path: live.path,
            deletionTimestamp: 1,
            dataChange: false,
            extendedFileMetadata: true,
            partitionValues: {},
            size: live.size,
          },
        ],
      },
      { version: 4, now: 1 },
    );
    expect(prepared.removes[0]?.deletionVector).toEqual({
      storageType: 'u',
      pathOrInlineDv: '^jP?.<zvDfIGb{C.FPij',
      offset: 1,
      sizeInBytes: 38,
      cardinality: 3,
    });
  });

  it('refuses to remove data from an append-only table, and an update on a table with change data feed', () => {
    const state = (configuration: Record<string, string>, names: string[]) => ({
      ...emptyState(),
      protocol: features(names),
      metadata: withProperties(configuration),
    });
    const remove = (dataChange: boolean) => ({
      path: 'dt=2026-11-21/old.parquet',
      deletionTimestamp: 1,
      dataChange,
      extendedFileMetadata: true,
      partitionValues: { dt: '2026-11-21' },
      size: 1,
    });
    const appendOnly = state({ 'delta.appendOnly': 'true' }, ['appendOnly']);
    expect(() => prepareCommit(appendOnly, { adds: [], removes: [remove(true)] }, { version: 1, now: 1 })).toThrow(
      CommitNotAllowed,
    );
    expect(() =>
      prepareCommit(
        appendOnly,
        { adds: [newFile('new.parquet', 2, false)], removes: [remove(false)] },
        { version: 1, now: 1 },
      ),
    ).not.toThrow();
    const feed = state({ 'delta.enableChangeDataFeed': 'true' }, ['changeDataFeed']);
    expect(() =>
      prepareCommit(feed, { adds: [newFile('new.parquet', 2)], removes: [remove(true)] }, { version: 1, now: 1 }),
    ).toThrow(/change data/);
    expect(() =>
      prepareCommit(feed, { adds: [newFile('new.parquet', 2)], removes: [] }, { version: 1, now: 1 }),
    ).not.toThrow();
  });

  it('writes the prepared actions into a commit other readers take: commitInfo first, domains, encoded paths', () => {
    const text = commitContent({
      version: 3,
      runId: 'run',
      engine: 'Tributary',
      metadata: null,
      adds: [{ ...newFile('dt=2026-11-21/a b%.parquet', 1), baseRowId: 10, defaultRowCommitVersion: 3 }],
      removes: [],
      txn: null,
      timestamp: 1000,
      operation: 'WRITE',
      commitInfo: { inCommitTimestamp: 1001 },
      domainMetadata: [{ domain: 'delta.rowTracking', configuration: '{"rowIdHighWaterMark":10}', removed: false }],
    });
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>);
    expect(Object.keys(lines[0] as object)).toEqual(['commitInfo']);
    expect(Object.keys(lines[0]?.commitInfo as object)[0]).toBe('inCommitTimestamp');
    expect(lines[0]?.commitInfo?.inCommitTimestamp).toBe(1001);
    expect(lines[1]).toEqual({
      domainMetadata: { domain: 'delta.rowTracking', configuration: '{"rowIdHighWaterMark":10}', removed: false },
    });
    expect(lines[2]?.add).toMatchObject({
      path: 'dt=2026-11-21/a%20b%25.parquet',
      baseRowId: 10,
      defaultRowCommitVersion: 3,
    });
  });
});
