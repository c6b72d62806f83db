/**
 * Deletion vectors decoded against independent truths: the protocol's own examples (PROTOCOL.md,
 * "Deletion Vectors"), ZeroMQ's Z85 test vector, bitmaps laid out byte by byte from the Roaring
 * format specification, and the DV files Spark wrote for a table whose deleted ids are known.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InvalidDeletionVector } from '#delta/errors.ts';
import {
  DeletedRows,
  decodeZ85,
  deletionVectorFile,
  deletionVectorId,
  parseDeletionVectorFile,
  parseRoaringBitmapArray,
  readDeletionVector,
} from '#delta/kernel/deletion-vectors.ts';
import { openSnapshot } from '#delta/kernel/snapshot.ts';
import { fixtureTable, parquetRows } from '../support/delta-fixtures.ts';

/** Little-endian bytes of the given widths. */
function bytes(...fields: [number | bigint, 1 | 2 | 4 | 8][]): Buffer {
  const out = Buffer.alloc(fields.reduce((sum, [, width]) => sum + width, 0));
  let at = 0;
  for (const [value, width] of fields) {
    if (width === 1) out.writeUInt8(Number(value), at);
    if (width === 2) out.writeUInt16LE(Number(value), at);
    if (width === 4) out.writeUInt32LE(Number(value), at);
    if (width === 8) out.writeBigUInt64LE(BigInt(value), at);
    at += width;
  }
  return out;
}

const magic: [number, 4] = [1681511377, 4];

describe('deletion vectors', () => {
  it('decode Z85 as ZeroMQ specifies it', () => {
    expect(Buffer.from(decodeZ85('HelloWorld')).toString('hex')).toBe('864fd26fb559f75b');
    expect(() => decodeZ85('Hello')).not.toThrow();
    expect(() => decodeZ85('Hell')).toThrow(InvalidDeletionVector);
    expect(() => decodeZ85('Hel~o')).toThrow(InvalidDeletionVector);
  });

  it('read the protocol example of an inline DV: rows 3, 4, 7, 11, 18, 29', async () => {
    const rows = await readDeletionVector(
      { get: async () => Buffer.alloc(0) },
      {
        storageType: 'i',
        pathOrInlineDv: 'wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L',
        offset: null,
        sizeInBytes: 40,
        cardinality: 6,
      },
    );
    expect([...rows.rows()]).toEqual([3, 4, 7, 11, 18, 29]);
    expect([0, 3, 5, 29, 30].map((row) => rows.has(row))).toEqual([false, true, false, true, false]);
  });

  it('find the file of the protocol example of a relative DV, with its random prefix', () => {
    const descriptor = {
      storageType: 'u',
      pathOrInlineDv: 'ab^-aqEH.-t@S}K{vb[*k^',
      offset: 4,
      sizeInBytes: 40,
      cardinality: 6,
    };
    expect(deletionVectorFile(descriptor)).toBe('ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin');
    expect(deletionVectorId(descriptor)).toBe('uab^-aqEH.-t@S}K{vb[*k^@4');
    expect(deletionVectorFile({ ...descriptor, storageType: 'p', pathOrInlineDv: 's3://t/dv%20x.bin' })).toBe(
      's3://t/dv x.bin',
    );
  });

  it('read run and bitmap containers, and buckets above 2^32, laid out as the Roaring specification says', () => {
    // Bucket 0: one run container (cookie 12347 with one container, run flag set) holding rows 10..109.
    const runBucket = Buffer.concat([bytes([0, 4]), bytes([12347, 2], [0, 2]), bytes([1, 1])]);
    const runBody = Buffer.concat([bytes([0, 2], [99, 2]), bytes([1, 2], [10, 2], [99, 2])]);
    // Bucket 1 (rows 2^32 + …): one bitmap container (cookie 12346) of the 4,097 even numbers 0..8192.
    const bitmap = Buffer.alloc(8192);
    for (let value = 0; value <= 8192; value += 2)
      bitmap[value >> 3] = (bitmap[value >> 3] as number) | (1 << (value & 7));
    const bitmapBucket = Buffer.concat([bytes([1, 4]), bytes([12346, 4], [1, 4]), bytes([0, 2], [4096, 2], [16, 4])]);
    const rows = parseRoaringBitmapArray(
      Buffer.concat([bytes(magic, [2, 8]), runBucket, runBody, bitmapBucket, bitmap]),
    );
    expect(rows.cardinality).toBe(100 + 4097);
    const high = 2 ** 32;
    expect([9, 10, 109, 110, high, high + 1, high + 8192, high + 8193].map((row) => rows.has(row))).toEqual([
      false,
      true,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect([...rows.rows()].slice(0, 3)).toEqual([10, 11, 12]);

    // Delta's native format: a 32-bit count, then each bitmap's size; the key is the bitmap's position.
    const roaring = bytes([12346, 4], [1, 4], [0, 2], [0, 2], [16, 4], [5, 2]);
    const native = parseRoaringBitmapArray(
      Buffer.concat([bytes([1681511376, 4], [2, 4], [18, 4]), roaring, bytes([18, 4]), roaring]),
    );
    expect([...native.rows()]).toEqual([5, high + 5]);
  });

  it('refuse a DV whose checksum, size, format or count does not hold', async () => {
    const bitmap = Buffer.concat([bytes(magic, [1, 8], [0, 4], [12346, 4], [1, 4], [0, 2], [0, 2], [16, 4], [5, 2])]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(bitmap));
    const size = Buffer.alloc(4);
    size.writeUInt32BE(bitmap.length);
    const file = Buffer.concat([Buffer.from([1]), size, bitmap, crc]);
    expect([...parseDeletionVectorFile(file, 1, bitmap.length).rows()]).toEqual([5]);
    const corrupt = Buffer.from(file);
    corrupt[file.length - 6] = 9;
    expect(() => parseDeletionVectorFile(corrupt, 1, bitmap.length)).toThrow(/checksum/);
    expect(() => parseDeletionVectorFile(file, 1, bitmap.length + 1)).toThrow(InvalidDeletionVector);
    expect(() =>
      parseDeletionVectorFile(Buffer.concat([Buffer.from([2]), file.subarray(1)]), 1, bitmap.length),
    ).toThrow(/version/);
    expect(() => parseRoaringBitmapArray(bitmap.subarray(0, 20))).toThrow(/ends early/);
    const storage = { get: async () => file };
    await expect(
      readDeletionVector(storage, {
        storageType: 'p',
        pathOrInlineDv: 's3://t/dv.bin',
        offset: 1,
        sizeInBytes: bitmap.length,
        cardinality: 2,
      }),
    ).rejects.toThrow(/1 rows where the log says 2/);
    expect(DeletedRows.none.has(0)).toBe(false);
  });

  it('read the DV files Spark wrote: the rows they delete are the ids the DELETEs named (0, then 7, then 14)', async () => {
    const { table, reader } = fixtureTable('log-replay-dv-key-cases');
    const deletedIds: number[][] = [];
    for (const version of [1, 2, 3]) {
      const { state } = await openSnapshot(reader, { version });
      const file = [...state.files.values()][0];
      if (!file?.deletionVector) throw new Error(`version ${version} has no DV`);
      const rows = await readDeletionVector(table.storage, file.deletionVector);
      const ids = (await parquetRows(await table.storage.get(file.path))).map((row) => Number(row.id));
      deletedIds.push([...rows.rows()].map((row) => ids[row] as number).sort((a, b) => a - b));
    }
    expect(deletedIds).toEqual([[0], [0, 7], [0, 7, 14]]);
  });
});
