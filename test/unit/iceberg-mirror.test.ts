import { Readable } from 'node:stream';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import type { Action, AddFile } from '#delta/kernel/log.ts';
import { applyActions, emptyState, type TableState } from '#delta/kernel/snapshot.ts';
import { metadataLimits, mirrorDeltaVersion, type TableMetadata } from '#iceberg/mirror.ts';
import { memoryTable } from '../support/memory-table.ts';

const root = 's3://lake/datasets/5f0c6a5e-4c1e-4d6b-9b8e-0d7c2a1f3e44';
const day = 24 * 60 * 60 * 1000;
const t0 = Date.parse('2026-11-20T10:00:00.000Z');

const schemaString = JSON.stringify({
  type: 'struct',
  fields: [
    { name: 'dt', type: 'string', nullable: false, metadata: {} },
    { name: 'message_id', type: 'string', nullable: false, metadata: {} },
    { name: 'ingested_at', type: 'timestamp', nullable: false, metadata: {} },
    { name: 'payload_size', type: 'long', nullable: false, metadata: {} },
    { name: 'attempts', type: 'integer', nullable: true, metadata: {} },
    { name: 'score', type: 'double', nullable: true, metadata: {} },
    { name: 'ok', type: 'boolean', nullable: true, metadata: {} },
    { name: 'born', type: 'date', nullable: true, metadata: {} },
    { name: 'raw', type: 'binary', nullable: true, metadata: {} },
  ],
});

const metaData = (configuration: Record<string, string> = {}, schema = schemaString): Action => ({
  metaData: {
    id: '5f0c6a5e-4c1e-4d6b-9b8e-0d7c2a1f3e44',
    name: 'orders',
    description: null,
    format: { provider: 'parquet', options: {} },
    schemaString: schema,
    partitionColumns: ['dt'],
    configuration,
    createdTime: t0,
  },
});

const addFile = (path: string, records: number, size = 1000, dataChange = true): AddFile => ({
  path,
  partitionValues: { dt: /dt=([\d-]+)/.exec(path)?.[1] ?? null },
  size,
  modificationTime: t0,
  dataChange,
  stats: JSON.stringify({ numRecords: records }),
});
const add = (path: string, records: number, size = 1000, dataChange = true): Action => ({
  add: addFile(path, records, size, dataChange),
});
const remove = (path: string): Action => ({
  remove: {
    path,
    deletionTimestamp: t0,
    dataChange: true,
    extendedFileMetadata: false,
    partitionValues: {},
    size: 0,
  },
});

/** A Delta table brought through versions, as the log would replay it. */
function deltaTable() {
  let state: TableState = emptyState();
  return {
    commit(actions: Action[], timestamp: number) {
      state = applyActions(state, state.version + 1, actions);
      state.recent.push({ version: state.version, timestamp, engine: null, txnId: null, info: {} });
      return state;
    },
  };
}

/** An Avro object container file read with avsc: its records and header metadata. */
async function readAvro(bytes: Buffer) {
  const decoder = new avro.streams.BlockDecoder();
  const records: Record<string, unknown>[] = [];
  let meta: Record<string, string> = {};
  let schema: unknown = null;
  await new Promise<void>((resolve, reject) => {
    decoder.on('metadata', (_type: unknown, _codec: string, header: { meta: Record<string, Buffer> }) => {
      meta = Object.fromEntries(Object.entries(header.meta).map(([k, v]) => [k, v.toString('utf8')]));
      schema = JSON.parse(meta['avro.schema'] ?? 'null');
    });
    decoder.on('data', (record: Record<string, unknown>) => records.push(record));
    decoder.on('end', resolve);
    decoder.on('error', reject);
    Readable.from([bytes]).pipe(decoder);
  });
  return { records, meta, schema };
}

function objectAt(table: ReturnType<typeof memoryTable>, location: string): Buffer {
  const object = table.objects.get(location.slice(root.length + 1));
  if (!object) throw new Error(`no object at ${location}`);
  return object.bytes;
}

function currentSnapshot(metadata: TableMetadata) {
  const snapshot = metadata.snapshots.find((s) => s['snapshot-id'] === metadata['current-snapshot-id']);
  if (!snapshot) throw new Error('no current snapshot');
  return snapshot;
}

/** The data files the current snapshot lists (status not DELETED), by manifest, decoded with avsc. */
async function liveDataFiles(table: ReturnType<typeof memoryTable>, metadata: TableMetadata) {
  const list = await readAvro(objectAt(table, currentSnapshot(metadata)['manifest-list']));
  const files: { path: string; dt: unknown; records: unknown; status: unknown; snapshot: unknown; manifest: string }[] =
    [];
  for (const manifest of list.records) {
    const read = await readAvro(objectAt(table, String(manifest.manifest_path)));
    for (const entry of read.records) {
      const dataFile = entry.data_file as Record<string, unknown>;
      if (entry.status === 2) continue;
      files.push({
        path: String(dataFile.file_path),
        dt: (dataFile.partition as Record<string, unknown>).dt,
        records: dataFile.record_count,
        status: entry.status,
        snapshot: entry.snapshot_id,
        manifest: String(manifest.manifest_path),
      });
    }
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Every entry of the current snapshot's manifests, DELETED ones included, with its manifest's list entry. */
async function allEntries(table: ReturnType<typeof memoryTable>, metadata: TableMetadata) {
  const list = await readAvro(objectAt(table, currentSnapshot(metadata)['manifest-list']));
  const entries: { path: string; status: unknown; snapshot: unknown; sequence: unknown; listed: unknown[] }[] = [];
  for (const manifest of list.records) {
    const read = await readAvro(objectAt(table, String(manifest.manifest_path)));
    for (const entry of read.records)
      entries.push({
        path: String((entry.data_file as Record<string, unknown>).file_path).slice(root.length + 1),
        status: entry.status,
        snapshot: entry.snapshot_id,
        sequence: entry.sequence_number,
        listed: [manifest.deleted_files_count, manifest.deleted_rows_count],
      });
  }
  return entries.sort((a, b) => (a.path < b.path ? -1 : 1));
}

async function mirror(table: ReturnType<typeof memoryTable>, state: TableState, now: number) {
  const result = await mirrorDeltaVersion(table.storage, { root, state, now });
  if (result.status !== 'Current') throw new Error(`not mirrored: ${result.reason}`);
  return result;
}

describe('a Delta version mirrored as Iceberg v2 metadata', () => {
  it('writes the metadata file, version hint, manifest list and manifests the spec describes', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    const state = delta.commit(
      [
        { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
        metaData(),
        add('dt=2026-11-19/a.parquet', 3),
        add('dt=2026-11-20/b.parquet', 5),
      ],
      t0,
    );

    // Act
    const result = await mirror(table, state, t0);

    // Assess
    expect(result.metadataLocation).toBe(`${root}/metadata/v1.metadata.json`);
    expect(table.objects.get('metadata/version-hint.text')?.bytes.toString()).toBe('1');
    const metadata = JSON.parse(objectAt(table, result.metadataLocation).toString());
    expect(metadata).toMatchObject({
      'format-version': 2,
      'table-uuid': '5f0c6a5e-4c1e-4d6b-9b8e-0d7c2a1f3e44',
      location: root,
      'last-sequence-number': 1,
      'last-column-id': 9,
      'current-schema-id': 0,
      'default-spec-id': 0,
      'last-partition-id': 1000,
      'default-sort-order-id': 0,
      'sort-orders': [{ 'order-id': 0, fields: [] }],
    });
    expect(metadata.schemas).toEqual([
      {
        type: 'struct',
        'schema-id': 0,
        fields: [
          { id: 1, name: 'dt', required: true, type: 'string' },
          { id: 2, name: 'message_id', required: true, type: 'string' },
          { id: 3, name: 'ingested_at', required: true, type: 'timestamptz' },
          { id: 4, name: 'payload_size', required: true, type: 'long' },
          { id: 5, name: 'attempts', required: false, type: 'int' },
          { id: 6, name: 'score', required: false, type: 'double' },
          { id: 7, name: 'ok', required: false, type: 'boolean' },
          { id: 8, name: 'born', required: false, type: 'date' },
          { id: 9, name: 'raw', required: false, type: 'binary' },
        ],
      },
    ]);
    expect(metadata['partition-specs']).toEqual([
      { 'spec-id': 0, fields: [{ name: 'dt', transform: 'identity', 'source-id': 1, 'field-id': 1000 }] },
    ]);
    expect(JSON.parse(metadata.properties['schema.name-mapping.default'])[0]).toEqual({ 'field-id': 1, names: ['dt'] });
    expect(JSON.parse(metadata.properties['schema.name-mapping.default'])).toHaveLength(9);
    const snapshot = currentSnapshot(metadata);
    expect(metadata.refs).toEqual({ main: { 'snapshot-id': snapshot['snapshot-id'], type: 'branch' } });
    expect(snapshot).toMatchObject({ 'sequence-number': 1, 'timestamp-ms': t0, 'schema-id': 0 });
    expect(snapshot['parent-snapshot-id']).toBeUndefined();
    expect(snapshot.summary).toMatchObject({
      operation: 'append',
      'delta-version': '0',
      'added-data-files': '2',
      'added-records': '8',
      'deleted-data-files': '0',
      'total-data-files': '2',
      'total-records': '8',
    });
    expect(metadata['snapshot-log']).toEqual([{ 'timestamp-ms': t0, 'snapshot-id': snapshot['snapshot-id'] }]);
    expect(metadata['metadata-log']).toEqual([]);

    const list = await readAvro(objectAt(table, snapshot['manifest-list']));
    expect(list.meta).toMatchObject({
      'format-version': '2',
      'snapshot-id': String(snapshot['snapshot-id']),
      'sequence-number': '1',
      'avro.codec': 'deflate',
    });
    expect(list.records).toHaveLength(2);
    const first = list.records.find((m) => String(m.manifest_path).length > 0 && m.added_rows_count === 3);
    expect(first).toMatchObject({
      partition_spec_id: 0,
      content: 0,
      sequence_number: 1,
      min_sequence_number: 1,
      added_snapshot_id: snapshot['snapshot-id'],
      added_files_count: 1,
      existing_files_count: 0,
      deleted_files_count: 0,
    });
    const partitions = first?.partitions as { lower_bound: Buffer; upper_bound: Buffer; contains_null: boolean }[];
    expect(partitions[0]?.lower_bound.toString()).toBe('2026-11-19');
    expect(partitions[0]?.upper_bound.toString()).toBe('2026-11-19');
    expect(partitions[0]?.contains_null).toBe(false);
    const listFields = (list.schema as { fields: { name: string; 'field-id': number }[] }).fields;
    expect(listFields.map((f) => [f.name, f['field-id']]).slice(0, 3)).toEqual([
      ['manifest_path', 500],
      ['manifest_length', 501],
      ['partition_spec_id', 502],
    ]);

    const manifest = await readAvro(objectAt(table, String(first?.manifest_path)));
    expect(manifest.meta).toMatchObject({
      'format-version': '2',
      content: 'data',
      'partition-spec-id': '0',
      'schema-id': '0',
    });
    expect(JSON.parse(manifest.meta['partition-spec'] ?? '')).toEqual(metadata['partition-specs'][0].fields);
    expect(manifest.records).toEqual([
      {
        status: 1,
        snapshot_id: snapshot['snapshot-id'],
        sequence_number: 1,
        file_sequence_number: 1,
        data_file: {
          content: 0,
          file_path: `${root}/dt=2026-11-19/a.parquet`,
          file_format: 'PARQUET',
          partition: { dt: '2026-11-19' },
          record_count: 3,
          file_size_in_bytes: 1000,
        },
      },
    ]);
  });

  it('rewrites only the manifest of the partition an append changed, and keeps carried files EXISTING', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    const first = await mirror(
      table,
      delta.commit([metaData(), add('dt=2026-11-19/a.parquet', 3), add('dt=2026-11-20/b.parquet', 5)], t0),
      t0,
    );
    const before = await liveDataFiles(table, first.metadata);
    const firstId = first.metadata['current-snapshot-id'];

    // Act: two commits folded into one snapshot
    delta.commit([add('dt=2026-11-20/c.parquet', 2)], t0 + 1000);
    const second = await mirror(table, delta.commit([add('dt=2026-11-20/d.parquet', 1)], t0 + 2000), t0 + 3000);

    // Assess
    const after = await liveDataFiles(table, second.metadata);
    expect(after.map((f) => [f.path.slice(root.length + 1), f.dt, f.records, f.status])).toEqual([
      ['dt=2026-11-19/a.parquet', '2026-11-19', 3, 0 + 1],
      ['dt=2026-11-20/b.parquet', '2026-11-20', 5, 0],
      ['dt=2026-11-20/c.parquet', '2026-11-20', 2, 1],
      ['dt=2026-11-20/d.parquet', '2026-11-20', 1, 1],
    ]);
    // The unchanged day's manifest is the first snapshot's own file; b keeps the snapshot that added it.
    expect(after[0]?.manifest).toBe(before[0]?.manifest);
    expect(after[1]?.manifest).not.toBe(before[1]?.manifest);
    expect(after[1]?.snapshot).toBe(firstId);
    const snapshot = currentSnapshot(second.metadata);
    expect(snapshot['parent-snapshot-id']).toBe(firstId);
    expect(snapshot['sequence-number']).toBe(2);
    expect(snapshot.summary).toMatchObject({
      operation: 'append',
      'delta-version': '2',
      'added-data-files': '2',
      'added-records': '3',
      'changed-partition-count': '1',
      'total-records': '11',
    });
    expect(second.metadata['metadata-log']).toEqual([
      { 'timestamp-ms': t0, 'metadata-file': `${root}/metadata/v1.metadata.json` },
    ]);
    expect(table.objects.get('metadata/version-hint.text')?.bytes.toString()).toBe('2');
  });

  it('mirrors a compaction as replace, a ranged replace as overwrite and a removed day as delete', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    await mirror(
      table,
      delta.commit(
        [
          metaData(),
          add('dt=2026-11-18/x.parquet', 4),
          add('dt=2026-11-19/a.parquet', 3),
          add('dt=2026-11-19/b.parquet', 2),
        ],
        t0,
      ),
      t0,
    );

    // Act
    const optimized = await mirror(
      table,
      delta.commit(
        [
          remove('dt=2026-11-19/a.parquet'),
          remove('dt=2026-11-19/b.parquet'),
          add('dt=2026-11-19/ab.parquet', 5, 1500, false),
        ],
        t0 + 1000,
      ),
      t0 + 1000,
    );
    const replaced = await mirror(
      table,
      delta.commit([remove('dt=2026-11-19/ab.parquet'), add('dt=2026-11-19/new.parquet', 7)], t0 + 2000),
      t0 + 2000,
    );
    const retained = await mirror(table, delta.commit([remove('dt=2026-11-18/x.parquet')], t0 + 3000), t0 + 3000);

    // Assess
    expect(currentSnapshot(optimized.metadata).summary).toMatchObject({
      operation: 'replace',
      'added-data-files': '1',
      'deleted-data-files': '2',
      'added-records': '5',
      'deleted-records': '5',
    });
    expect((await liveDataFiles(table, optimized.metadata)).map((f) => f.path.slice(root.length + 1))).toEqual([
      'dt=2026-11-18/x.parquet',
      'dt=2026-11-19/ab.parquet',
    ]);
    expect(currentSnapshot(replaced.metadata).summary).toMatchObject({
      operation: 'overwrite',
      'deleted-records': '5',
      'added-records': '7',
    });
    expect(currentSnapshot(retained.metadata).summary).toMatchObject({
      operation: 'delete',
      'deleted-data-files': '1',
      'deleted-records': '4',
      'total-records': '7',
      'delta-version': '3',
    });
    expect((await liveDataFiles(table, retained.metadata)).map((f) => f.path.slice(root.length + 1))).toEqual([
      'dt=2026-11-19/new.parquet',
    ]);
  });

  it('lists the files a snapshot removes as DELETED entries of that snapshot, and the next snapshot drops them', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    const first = await mirror(
      table,
      delta.commit(
        [
          metaData(),
          add('dt=2026-11-18/x.parquet', 4),
          add('dt=2026-11-19/a.parquet', 3),
          add('dt=2026-11-19/b.parquet', 2),
        ],
        t0,
      ),
      t0,
    );
    const firstId = first.metadata['current-snapshot-id'];

    // Act: a compaction of one day and the other day dropped (retention), then an append.
    const compacted = await mirror(
      table,
      delta.commit(
        [
          remove('dt=2026-11-19/a.parquet'),
          remove('dt=2026-11-19/b.parquet'),
          add('dt=2026-11-19/ab.parquet', 5, 1500, false),
        ],
        t0 + 1000,
      ),
      t0 + 1000,
    );
    const retained = await mirror(table, delta.commit([remove('dt=2026-11-18/x.parquet')], t0 + 2000), t0 + 2000);
    const appended = await mirror(table, delta.commit([add('dt=2026-11-20/c.parquet', 1)], t0 + 3000), t0 + 3000);

    // Assess
    const compactedId = compacted.metadata['current-snapshot-id'];
    expect(await allEntries(table, compacted.metadata)).toEqual([
      { path: 'dt=2026-11-18/x.parquet', status: 1, snapshot: firstId, sequence: 1, listed: [0, 0] },
      { path: 'dt=2026-11-19/a.parquet', status: 2, snapshot: compactedId, sequence: 1, listed: [2, 5] },
      { path: 'dt=2026-11-19/ab.parquet', status: 1, snapshot: compactedId, sequence: 2, listed: [2, 5] },
      { path: 'dt=2026-11-19/b.parquet', status: 2, snapshot: compactedId, sequence: 1, listed: [2, 5] },
    ]);
    const retainedId = retained.metadata['current-snapshot-id'];
    expect(await allEntries(table, retained.metadata)).toEqual([
      { path: 'dt=2026-11-18/x.parquet', status: 2, snapshot: retainedId, sequence: 1, listed: [1, 4] },
      { path: 'dt=2026-11-19/a.parquet', status: 2, snapshot: compactedId, sequence: 1, listed: [2, 5] },
      { path: 'dt=2026-11-19/ab.parquet', status: 1, snapshot: compactedId, sequence: 2, listed: [2, 5] },
      { path: 'dt=2026-11-19/b.parquet', status: 2, snapshot: compactedId, sequence: 1, listed: [2, 5] },
    ]);
    expect(currentSnapshot(retained.metadata).summary).toMatchObject({
      operation: 'delete',
      'deleted-data-files': '1',
      'deleted-records': '4',
      'removed-files-size': '1000',
    });
    const appendedId = appended.metadata['current-snapshot-id'];
    expect(
      (await allEntries(table, appended.metadata)).map((entry) => [entry.path, entry.status, entry.snapshot]),
    ).toEqual([
      ['dt=2026-11-19/a.parquet', 2, compactedId],
      ['dt=2026-11-19/ab.parquet', 1, compactedId],
      ['dt=2026-11-19/b.parquet', 2, compactedId],
      ['dt=2026-11-20/c.parquet', 1, appendedId],
    ]);
    expect(currentSnapshot(appended.metadata).summary).toMatchObject({
      operation: 'append',
      'deleted-data-files': '0',
      'changed-partition-count': '1',
      'total-records': '6',
    });
  });

  it('calls a compaction folded with a retention drop an overwrite, which incremental readers do not skip', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    await mirror(
      table,
      delta.commit(
        [
          metaData(),
          add('dt=2026-11-18/x.parquet', 4),
          add('dt=2026-11-19/a.parquet', 3),
          add('dt=2026-11-19/b.parquet', 2),
        ],
        t0,
      ),
      t0,
    );

    // Act: the maintenance's compaction and retention drop, two Delta versions, synced at once.
    delta.commit(
      [
        remove('dt=2026-11-19/a.parquet'),
        remove('dt=2026-11-19/b.parquet'),
        add('dt=2026-11-19/ab.parquet', 5, 1500, false),
      ],
      t0 + 1000,
    );
    const synced = await mirror(table, delta.commit([remove('dt=2026-11-18/x.parquet')], t0 + 2000), t0 + 2000);

    // Assess
    expect(currentSnapshot(synced.metadata).summary).toMatchObject({
      operation: 'overwrite',
      'added-data-files': '1',
      'added-records': '5',
      'deleted-data-files': '3',
      'deleted-records': '9',
      'changed-partition-count': '2',
    });
  });

  it('writes nothing when the metadata mirrors the version already', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const state = deltaTable().commit([metaData(), add('dt=2026-11-19/a.parquet', 3)], t0);
    await mirror(table, state, t0);
    const objects = table.objects.size;

    // Act
    const again = await mirror(table, state, t0 + 1000);

    // Assess
    expect(again.wrote).toBe(false);
    expect(again.metadataLocation).toBe(`${root}/metadata/v1.metadata.json`);
    expect(table.objects.size).toBe(objects);
  });

  it('goes on past a metadata file whose version hint was never written, and writes the hint again', async () => {
    // Prepare: v2 written, then the mirror stopped before its hint (left at 1); on a new table, v1 without a hint.
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    await mirror(table, delta.commit([metaData(), add('dt=2026-11-19/a.parquet', 3)], t0), t0);
    await mirror(table, delta.commit([add('dt=2026-11-19/b.parquet', 1)], t0 + 1000), t0 + 1000);
    const hint = table.objects.get('metadata/version-hint.text');
    if (!hint) throw new Error('no hint');
    table.objects.set('metadata/version-hint.text', { ...hint, bytes: Buffer.from('1') });

    // Act: the next commit's mirror, with no location recorded (the record kept v1 too).
    const third = await mirror(table, delta.commit([add('dt=2026-11-20/c.parquet', 2)], t0 + 2000), t0 + 2000);

    // Assess: built on v2, not refused for good because v2 was taken; the hint names v3.
    expect(third.metadataLocation).toBe(`${root}/metadata/v3.metadata.json`);
    expect(currentSnapshot(third.metadata)['sequence-number']).toBe(3);
    expect(table.objects.get('metadata/version-hint.text')?.bytes.toString()).toBe('3');

    const fresh = memoryTable({ jitter: false });
    const state = deltaTable().commit([metaData(), add('dt=2026-11-19/a.parquet', 3)], t0);
    await mirror(fresh, state, t0);
    fresh.objects.delete('metadata/version-hint.text');
    const again = await mirror(fresh, state, t0 + 1000);
    expect([again.wrote, again.metadataLocation]).toEqual([false, `${root}/metadata/v1.metadata.json`]);
    expect(fresh.objects.get('metadata/version-hint.text')?.bytes.toString()).toBe('1');
  });

  it('keeps column ids across a schema change and adds the new column with the next id', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    await mirror(table, delta.commit([metaData(), add('dt=2026-11-19/a.parquet', 3)], t0), t0);
    const widened = JSON.parse(schemaString);
    widened.fields.splice(2, 0, { name: 'headers', type: 'string', nullable: true, metadata: {} });

    // Act
    const result = await mirror(table, delta.commit([metaData({}, JSON.stringify(widened))], t0 + 1000), t0 + 1000);

    // Assess
    expect(result.metadata['current-schema-id']).toBe(1);
    expect(result.metadata['last-column-id']).toBe(10);
    const fields = result.metadata.schemas[1]?.fields.map((f) => [f.name, f.id]);
    expect(fields?.slice(0, 4)).toEqual([
      ['dt', 1],
      ['message_id', 2],
      ['headers', 10],
      ['ingested_at', 3],
    ]);
    expect(result.metadata.schemas).toHaveLength(2);
  });

  it('says which tables Iceberg cannot express, and writes nothing for them', async () => {
    // Prepare
    const table = memoryTable({ jitter: false });
    const withDv = deltaTable().commit(
      [
        metaData(),
        {
          add: {
            ...addFile('dt=2026-11-19/a.parquet', 3),
            deletionVector: {
              storageType: 'i',
              pathOrInlineDv: 'wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L',
              offset: null,
              sizeInBytes: 34,
              cardinality: 1,
            },
          },
        },
      ],
      t0,
    );
    const mapped = deltaTable().commit([metaData({ 'delta.columnMapping.mode': 'name' })], t0);
    const nested = deltaTable().commit(
      [
        metaData(
          {},
          JSON.stringify({
            type: 'struct',
            fields: [
              { name: 'dt', type: 'string', nullable: false, metadata: {} },
              {
                name: 'tags',
                type: { type: 'array', elementType: 'string', containsNull: true },
                nullable: true,
                metadata: {},
              },
            ],
          }),
        ),
      ],
      t0,
    );

    // Act
    const results = await Promise.all(
      [withDv, mapped, nested].map((state) => mirrorDeltaVersion(table.storage, { root, state, now: t0 })),
    );

    // Assess
    expect(results).toEqual([
      { status: 'Unsupported', deltaVersion: 0, reason: 'deletion vectors' },
      { status: 'Unsupported', deltaVersion: 0, reason: 'column mapping' },
      {
        status: 'Unsupported',
        deltaVersion: 0,
        reason: 'column tags of a type Tributary does not mirror (array)',
      },
    ]);
    expect(table.objects.size).toBe(0);
  });

  it("expires snapshots and metadata older than the Delta table's log retention, and deletes their objects", async () => {
    // Prepare: the store's clock moves with the table's.
    let now = t0;
    const table = memoryTable({ jitter: false, clock: () => now });
    const delta = deltaTable();
    const config = { 'delta.logRetentionDuration': 'interval 2 days' };
    const first = await mirror(table, delta.commit([metaData(config), add('dt=2026-11-19/a.parquet', 3)], now), now);
    now += 1000;
    await mirror(table, delta.commit([add('dt=2026-11-20/b.parquet', 1)], now), now);
    const keptManifest = (await liveDataFiles(table, first.metadata))[0]?.manifest;

    // Act: more than a day past the retention, one more version
    now += 3 * day + 1000;
    const late = await mirror(table, delta.commit([add('dt=2026-11-23/c.parquet', 2)], now), now);

    // Assess
    expect(late.metadata.snapshots).toHaveLength(1);
    expect(late.metadata['snapshot-log']).toHaveLength(1);
    expect(late.metadata['metadata-log']).toEqual([]);
    const keys = [...table.objects.keys()].filter((key) => key.startsWith('metadata/')).sort();
    const live = await liveDataFiles(table, late.metadata);
    expect(live.map((f) => f.path.slice(root.length + 1))).toEqual([
      'dt=2026-11-19/a.parquet',
      'dt=2026-11-20/b.parquet',
      'dt=2026-11-23/c.parquet',
    ]);
    // What the current snapshot reads is kept (the first snapshot's manifest of 2026-11-19 among it);
    // v1 and the first two manifest lists are gone; v2 stays, a reader may have just found it.
    const expected = new Set([
      'metadata/version-hint.text',
      'metadata/v2.metadata.json',
      'metadata/v3.metadata.json',
      currentSnapshot(late.metadata)['manifest-list'].slice(root.length + 1),
      ...live.map((f) => f.manifest.slice(root.length + 1)),
    ]);
    expect(keys).toEqual([...expected].sort());
    expect(live[0]?.manifest).toBe(keptManifest);
  });

  it('keeps at most metadataLimits snapshots and metadata-log entries, however young, so a busy table’s metadata stays small', async () => {
    const saved = { ...metadataLimits };
    Object.assign(metadataLimits, { snapshots: 3, metadataLog: 2 });
    try {
      let now = t0;
      const table = memoryTable({ jitter: false, clock: () => now });
      const delta = deltaTable();
      let last = await mirror(table, delta.commit([metaData(), add('dt=2026-11-19/a.parquet', 1)], now), now);
      const lengths: number[] = [];
      for (const name of ['b', 'c', 'd', 'e', 'f']) {
        now += 60_000;
        last = await mirror(table, delta.commit([add(`dt=2026-11-19/${name}.parquet`, 1)], now), now);
        lengths.push(last.metadata.snapshots.length);
      }
      // Trimmed to 3 once there are more than 3.3, not at every sync.
      expect(lengths).toEqual([2, 3, 3, 3, 3]);
      expect(last.metadata['snapshot-log']).toHaveLength(3);
      expect(last.metadata['metadata-log'].length).toBeLessThanOrEqual(2);
      // Every row is still read from the current snapshot.
      expect((await liveDataFiles(table, last.metadata)).map((file) => file.path.split('/').pop())).toEqual([
        'a.parquet',
        'b.parquet',
        'c.parquet',
        'd.parquet',
        'e.parquet',
        'f.parquet',
      ]);
    } finally {
      Object.assign(metadataLimits, saved);
    }
  });

  it('withdraws the version hint of a table that became inexpressible, and writes it again once it is expressible', async () => {
    // Prepare: a mirrored table; another writer then deletes a row of its file with a deletion vector.
    const table = memoryTable({ jitter: false });
    const delta = deltaTable();
    await mirror(table, delta.commit([metaData(), add('dt=2026-11-19/a.parquet', 3)], t0), t0);
    const deletionVector = {
      storageType: 'i',
      pathOrInlineDv: 'wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L',
      offset: null,
      sizeInBytes: 34,
      cardinality: 1,
    };
    const dv = { add: { ...addFile('dt=2026-11-19/a.parquet', 3), deletionVector } } as Action;
    const removeWithDv = {
      remove: { ...(remove('dt=2026-11-19/a.parquet') as { remove: object }).remove, deletionVector },
    } as Action;
    const hinted = () => table.objects.has('metadata/version-hint.text');
    const before = hinted();
    // Act
    const deleted = await mirrorDeltaVersion(table.storage, { root, state: delta.commit([dv], t0 + 1), now: t0 + 1 });
    const during = hinted();
    // The file rewritten without its deleted row: expressible again.
    const again = await mirror(table, delta.commit([removeWithDv, add('dt=2026-11-19/a2.parquet', 2)], t0 + 2), t0 + 2);
    // Assess
    expect({ before, status: deleted.status, during, after: hinted(), again: again.status }).toEqual({
      before: true,
      status: 'Unsupported',
      during: false,
      after: true,
      again: 'Current',
    });
  });
});
