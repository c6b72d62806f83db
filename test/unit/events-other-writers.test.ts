/**
 * The Events view on a webhook table another engine also writes: rows a DELETE marked in a deletion
 * vector (a tenant erasing a payload with Databricks, say) are not shown, and a table whose features
 * Tributary's readers do not implement is refused with the reason rather than read wrongly.
 * The DV is laid out here by hand from the protocol (RoaringBitmapArray, Z85 id), not by our code.
 */
import { randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '#delta/parquet/checkpoint-reader.ts';
import { writeParquet } from '#delta/parquet/parquet-files.ts';
import { tableEvents } from '#shared/adapters/repositories/events.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { envelopeColumns } from '#shared/domain/ingest/envelope.ts';
import { readEvents } from '#shared/domain/monitoring/events.ts';
import { memoryTable } from '../support/memory-table.ts';

const z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
/** Z85 (ZeroMQ RFC 32) of bytes whose length is a multiple of 4. */
function encodeZ85(bytes: Buffer): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 4) {
    let value = bytes.readUInt32BE(i);
    let group = '';
    for (let j = 0; j < 5; j++) {
      group = (z85[value % 85] as string) + group;
      value = Math.floor(value / 85);
    }
    text += group;
  }
  return text;
}

/** A DV file (format version 1) holding one portable RoaringBitmapArray of the given rows (< 4096 of them, below 65536). */
function deletionVectorFile(rows: number[]) {
  const bitmap = Buffer.alloc(4 + 8 + 4 + 4 + 4 + 4 + 4 + rows.length * 2);
  let at = bitmap.writeUInt32LE(1681511377, 0);
  at = bitmap.writeBigUInt64LE(1n, at);
  at = bitmap.writeUInt32LE(0, at); // bucket key
  at = bitmap.writeUInt32LE(12346, at); // no run containers
  at = bitmap.writeUInt32LE(1, at); // one container
  at = bitmap.writeUInt16LE(0, at);
  at = bitmap.writeUInt16LE(rows.length - 1, at);
  at = bitmap.writeUInt32LE(16, at); // offset of the container
  for (const row of rows) at = bitmap.writeUInt16LE(row, at);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(bitmap.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(bitmap));
  return { bytes: Buffer.concat([Buffer.from([1]), size, bitmap, crc]), sizeInBytes: bitmap.length };
}

const at = Date.parse('2026-11-21T10:00:00.000Z');

function envelopeFile(messageIds: string[]) {
  return writeParquet(
    [...envelopeColumns],
    [
      messageIds,
      messageIds.map((_, i) => BigInt(at + i * 1000) * 1000n),
      messageIds.map(() => 'source'),
      messageIds.map(() => 'tenant'),
      messageIds.map(() => 'application/json'),
      messageIds.map(() => 2n),
      messageIds.map((id) => Buffer.from(`{"id":"${id}"}`).toString('base64')),
      messageIds.map(() => null),
    ],
  );
}

function tableOf(protocol: object, configuration: Record<string, string>) {
  const table = memoryTable({ jitter: false });
  const ids = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
  const file = envelopeFile(ids);
  const dataPath = 'dt=2026-11-21/part-00000-spark.c000.snappy.parquet';
  table.objects.set(dataPath, { bytes: Buffer.from(file.bytes), lastModified: 0 });
  // Rows 1 and 4 deleted, in a DV file named by a UUID under a random prefix, as Spark names them.
  const uuid = randomUUID();
  const dv = deletionVectorFile([1, 4]);
  table.objects.set(`ab/deletion_vector_${uuid}.bin`, { bytes: dv.bytes, lastModified: 0 });
  const add = {
    path: dataPath,
    partitionValues: { dt: '2026-11-21' },
    size: file.bytes.length,
    modificationTime: at,
    dataChange: true,
    stats: JSON.stringify(file.stats),
  };
  const lines = [
    { commitInfo: { operation: 'WRITE' } },
    { protocol },
    {
      metaData: {
        id: 't',
        format: { provider: 'parquet', options: {} },
        schemaString: '{"type":"struct","fields":[]}',
        partitionColumns: ['dt'],
        configuration,
      },
    },
    { add },
  ];
  const deletion = [
    { commitInfo: { operation: 'DELETE' } },
    { remove: { path: dataPath, deletionTimestamp: at, dataChange: true } },
    {
      add: {
        ...add,
        deletionVector: {
          storageType: 'u',
          pathOrInlineDv: `ab${encodeZ85(Buffer.from(uuid.replace(/-/g, ''), 'hex'))}`,
          offset: 1,
          sizeInBytes: dv.sizeInBytes,
          cardinality: 2,
        },
      },
    },
  ];
  const put = (version: number, actions: object[]) =>
    table.objects.set(`_delta_log/${String(version).padStart(20, '0')}.json`, {
      bytes: Buffer.from(actions.map((action) => JSON.stringify(action)).join('\n')),
      lastModified: 0,
    });
  put(0, lines);
  put(1, deletion);
  const events = tableEvents({ storage: table.storage, decodeCheckpoint });
  return {
    ids,
    deps: {
      ...events,
      stagedSources: async () => [],
      cursors: { seal: async () => 'cursor', open: async () => ({}) },
    },
  };
}

describe('the Events view on a table other engines write', () => {
  it('does not show the rows a deletion vector deleted', async () => {
    const { ids, deps } = tableOf(
      {
        minReaderVersion: 3,
        minWriterVersion: 7,
        readerFeatures: ['deletionVectors'],
        writerFeatures: ['deletionVectors'],
      },
      { 'delta.enableDeletionVectors': 'true' },
    );
    const page = await readEvents(deps, { limit: 10 });
    expect(page.events.map((event) => event.message_id).sort()).toEqual(
      ids.filter((_, row) => row !== 1 && row !== 4).sort(),
    );
    expect((await readEvents(deps, { limit: 10, message_id: ids[4] })).events).toEqual([]);
  });

  it('refuses a table its readers would misread, with the reason (column mapping by name)', async () => {
    const { deps } = tableOf(
      {
        minReaderVersion: 3,
        minWriterVersion: 7,
        readerFeatures: ['deletionVectors', 'columnMapping'],
        writerFeatures: ['deletionVectors', 'columnMapping'],
      },
      { 'delta.columnMapping.mode': 'name' },
    );
    const refused = await readEvents(deps, { limit: 10 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'CONFLICT' });
    expect((refused as Error).message).toContain('column mapping');
  });
});
