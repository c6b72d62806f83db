/**
 * Deletion vectors (protocol "Deletion Vectors" and "Deletion Vector Format"): the rows of a data
 * file that a DELETE, UPDATE or MERGE of another writer (Spark, Databricks, delta-rs) took out of the
 * table without rewriting the file. A reader must not return them; a writer that rewrites the file
 * (our compaction) drops them, and its remove names the DV so that the logical file (path, DV) leaves.
 *
 * A DV is a set of row indexes (0-based positions in the Parquet file), serialised as Delta's
 * RoaringBitmapArray: a magic number (1681511377, little endian) and a 64-bit Roaring bitmap in the
 * portable format (a count of 32-bit buckets, then each bucket's high 32 bits and a standard 32-bit
 * Roaring bitmap; parseRoaringBitmapArray also reads Delta's native variant). It is stored
 *   i  inline in the log, Z85-encoded;
 *   u  in `<table>/<prefix>/deletion_vector_<uuid>.bin`, the UUID Z85-encoded in the descriptor's last
 *      20 characters, the random prefix before them;
 *   p  in a file at an absolute path;
 * a file holding one or more DVs, each as a big-endian size, the bitmap and its CRC-32, after a
 * leading format version byte; the descriptor's offset points at the size.
 */
import { crc32 } from 'node:zlib';
import { InvalidDeletionVector } from '../errors.ts';
import { type DeletionVectorDescriptor, decodeLogPath } from './log.ts';
import type { TableStorage } from './storage.ts';

const z85Alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const z85Values = new Int16Array(128).fill(-1);
for (let i = 0; i < z85Alphabet.length; i++) z85Values[z85Alphabet.charCodeAt(i)] = i;

/** Z85 (ZeroMQ RFC 32): every 5 characters are 4 bytes, big endian. Delta pads to whole groups; `length` trims. */
export function decodeZ85(text: string, length = Math.floor(text.length / 5) * 4): Uint8Array {
  if (text.length % 5 !== 0) throw new InvalidDeletionVector(`Z85 text of ${text.length} characters`);
  const bytes = new Uint8Array((text.length / 5) * 4);
  for (let group = 0; group < text.length / 5; group++) {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      const code = text.charCodeAt(group * 5 + i);
      const digit = code < 128 ? (z85Values[code] as number) : -1;
      if (digit < 0) throw new InvalidDeletionVector(`not a Z85 character: ${text[group * 5 + i]}`);
      value = value * 85 + digit;
    }
    if (value > 0xffffffff) throw new InvalidDeletionVector('Z85 group out of range');
    new DataView(bytes.buffer).setUint32(group * 4, value);
  }
  return bytes.subarray(0, length);
}

/** The DV's id in the logical file's key (path, DV): `<type><pathOrInlineDv>[@offset]`. */
export function deletionVectorId(descriptor: DeletionVectorDescriptor | undefined | null): string | null {
  if (!descriptor) return null;
  const { storageType, pathOrInlineDv, offset } = descriptor;
  return offset === null ? `${storageType}${pathOrInlineDv}` : `${storageType}${pathOrInlineDv}@${offset}`;
}

/** The file a `u` or `p` DV is stored in: relative to the table root, or an absolute URI; null for inline ones. */
export function deletionVectorFile(descriptor: DeletionVectorDescriptor): string | null {
  if (descriptor.storageType === 'p') return decodeLogPath(descriptor.pathOrInlineDv);
  if (descriptor.storageType !== 'u') return null;
  const encoded = descriptor.pathOrInlineDv;
  if (encoded.length < 20) throw new InvalidDeletionVector(`a relative DV id of ${encoded.length} characters`);
  const prefix = encoded.slice(0, -20);
  const hex = Buffer.from(decodeZ85(encoded.slice(-20))).toString('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return `${prefix ? `${prefix}/` : ''}deletion_vector_${uuid}.bin`;
}

/** A container of one 2^16 block of row indexes: sorted values, a bitmap of 1024 words, or runs. */
type Container =
  | { kind: 'array'; values: Uint16Array }
  | { kind: 'bitmap'; words: Uint32Array }
  | { kind: 'run'; starts: Uint16Array; lengths: Uint16Array };

/** Deleted row indexes of one file: `has(row)` in logarithmic time, whatever the count. */
export class DeletedRows {
  constructor(
    /** By the row index's bits above the lowest 16. */
    private readonly containers: Map<number, Container>,
    readonly cardinality: number,
  ) {}

  static readonly none = new DeletedRows(new Map(), 0);

  has(row: number): boolean {
    const container = this.containers.get(Math.floor(row / 65536));
    if (!container) return false;
    const low = row % 65536;
    if (container.kind === 'bitmap') return ((container.words[low >>> 5] as number) & (1 << (low & 31))) !== 0;
    if (container.kind === 'array') return binarySearch(container.values, low) >= 0;
    const index = binarySearch(container.starts, low);
    const run = index >= 0 ? index : -index - 2;
    return run >= 0 && low <= (container.starts[run] as number) + (container.lengths[run] as number);
  }

  /** Every deleted row index, in order (for tests and small DVs). */
  *rows(): Generator<number> {
    for (const high of [...this.containers.keys()].sort((a, b) => a - b)) {
      const container = this.containers.get(high) as Container;
      const base = high * 65536;
      if (container.kind === 'array') for (const value of container.values) yield base + value;
      else if (container.kind === 'run')
        for (let r = 0; r < container.starts.length; r++)
          for (let v = 0; v <= (container.lengths[r] as number); v++) yield base + (container.starts[r] as number) + v;
      else
        for (let low = 0; low < 65536; low++)
          if (((container.words[low >>> 5] as number) & (1 << (low & 31))) !== 0) yield base + low;
    }
  }
}

/** Index of `value` in a sorted array, or -(insertion point) - 1. */
function binarySearch(values: Uint16Array, value: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const current = values[middle] as number;
    if (current < value) low = middle + 1;
    else if (current > value) high = middle - 1;
    else return middle;
  }
  return -(low + 1);
}

/** Delta's RoaringBitmapArray formats: the protocol's portable one, and the native one Delta also reads. */
const portableMagic = 1681511377;
const nativeMagic = 1681511376;
const serialCookieNoRuns = 12346;
const serialCookie = 12347;
/** Below this many containers a bitmap with run containers has no offset header. */
const noOffsetThreshold = 4;

/** A little-endian reader over the bitmap's bytes that refuses to read past them. */
class Cursor {
  private readonly view: DataView;
  position = 0;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  private need(count: number) {
    if (this.position + count > this.bytes.length) throw new InvalidDeletionVector('the bitmap ends early');
  }
  u8s(count: number) {
    this.need(count);
    const values = this.bytes.slice(this.position, this.position + count);
    this.position += count;
    return values;
  }
  u16() {
    this.need(2);
    const value = this.view.getUint16(this.position, true);
    this.position += 2;
    return value;
  }
  u32(littleEndian = true) {
    this.need(4);
    const value = this.view.getUint32(this.position, littleEndian);
    this.position += 4;
    return value;
  }
  u64(littleEndian = true) {
    this.need(8);
    const value = this.view.getBigUint64(this.position, littleEndian);
    this.position += 8;
    return value;
  }
  u16s(count: number) {
    this.need(count * 2);
    const values = new Uint16Array(count);
    for (let i = 0; i < count; i++) values[i] = this.view.getUint16(this.position + i * 2, true);
    this.position += count * 2;
    return values;
  }
  u32s(count: number) {
    this.need(count * 4);
    const values = new Uint32Array(count);
    for (let i = 0; i < count; i++) values[i] = this.view.getUint32(this.position + i * 4, true);
    this.position += count * 4;
    return values;
  }
}

/** One standard 32-bit Roaring bitmap (RoaringFormatSpec), its containers keyed from `highBase`. */
function readRoaring32(cursor: Cursor, highBase: number, into: Map<number, Container>): number {
  const cookie = cursor.u32();
  let size: number;
  let runFlags: Uint8Array | null = null;
  if ((cookie & 0xffff) === serialCookie) {
    size = (cookie >>> 16) + 1;
    runFlags = cursor.u8s(Math.ceil(size / 8));
  } else if (cookie === serialCookieNoRuns) {
    size = cursor.u32();
  } else {
    throw new InvalidDeletionVector(`not a Roaring bitmap (cookie ${cookie})`);
  }
  const keys: number[] = [];
  const cardinalities: number[] = [];
  for (let i = 0; i < size; i++) {
    keys.push(cursor.u16());
    cardinalities.push(cursor.u16() + 1);
  }
  if (!runFlags || size >= noOffsetThreshold) cursor.u32s(size);
  let total = 0;
  for (let i = 0; i < size; i++) {
    const isRun = runFlags !== null && ((runFlags[i >>> 3] as number) & (1 << (i & 7))) !== 0;
    const cardinality = cardinalities[i] as number;
    let container: Container;
    if (isRun) {
      const runs = cursor.u16();
      const pairs = cursor.u16s(runs * 2);
      const starts = new Uint16Array(runs);
      const lengths = new Uint16Array(runs);
      for (let r = 0; r < runs; r++) {
        starts[r] = pairs[r * 2] as number;
        lengths[r] = pairs[r * 2 + 1] as number;
      }
      container = { kind: 'run', starts, lengths };
    } else if (cardinality <= 4096) {
      container = { kind: 'array', values: cursor.u16s(cardinality) };
    } else {
      container = { kind: 'bitmap', words: cursor.u32s(2048) };
    }
    into.set(highBase + (keys[i] as number), container);
    total += cardinality;
  }
  return total;
}

/**
 * Delta's RoaringBitmapArray: a magic number, then 32-bit Roaring bitmaps (always little endian)
 * keyed by the row indexes' high 32 bits — in the portable format (the protocol's) a 64-bit count and
 * each bitmap's key, in the native format a 32-bit count and each bitmap's size (the key being its
 * position). Delta writes the magic number and these counts little endian; the protocol's own inline
 * example has them big endian, which is read too.
 */
export function parseRoaringBitmapArray(bytes: Uint8Array): DeletedRows {
  const cursor = new Cursor(bytes);
  const first = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 4) throw new InvalidDeletionVector('the bitmap ends early');
  const littleEndian = [portableMagic, nativeMagic].includes(first.getUint32(0, true));
  const magic = cursor.u32(littleEndian);
  if (magic !== portableMagic && magic !== nativeMagic)
    throw new InvalidDeletionVector(`unknown format (magic number ${first.getUint32(0, true)})`);
  const containers = new Map<number, Container>();
  let cardinality = 0;
  if (magic === portableMagic) {
    const buckets = cursor.u64(littleEndian);
    if (buckets > 65536n) throw new InvalidDeletionVector(`${buckets} buckets`);
    for (let b = 0; b < Number(buckets); b++) {
      const high = cursor.u32(littleEndian);
      if (high >= 0x80000000) throw new InvalidDeletionVector('a negative bucket key');
      cardinality += readRoaring32(cursor, high * 65536, containers);
    }
  } else {
    const buckets = cursor.u32(littleEndian);
    if (buckets > 65536) throw new InvalidDeletionVector(`${buckets} buckets`);
    for (let high = 0; high < buckets; high++) {
      const size = cursor.u32(littleEndian);
      const start = cursor.position;
      cardinality += readRoaring32(cursor, high * 65536, containers);
      cursor.position = start + size;
    }
  }
  return new DeletedRows(containers, cardinality);
}

/** The bitmap of an on-disk DV: checks the file's format version, the size and the CRC-32. */
export function parseDeletionVectorFile(file: Uint8Array, offset: number, sizeInBytes: number): DeletedRows {
  if (file[0] !== 1) throw new InvalidDeletionVector(`unknown file format version ${file[0]}`);
  if (offset + 4 + sizeInBytes + 4 > file.length) throw new InvalidDeletionVector('the DV ends past its file');
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const size = view.getUint32(offset);
  if (size !== sizeInBytes) throw new InvalidDeletionVector(`size ${size} where the log says ${sizeInBytes}`);
  const bitmap = file.subarray(offset + 4, offset + 4 + size);
  if (crc32(bitmap) !== view.getUint32(offset + 4 + size)) throw new InvalidDeletionVector('checksum mismatch');
  return parseRoaringBitmapArray(bitmap);
}

/** Whatever the descriptor's storage, the deleted rows; `storage` reads `u` and `p` files of the table. */
export async function readDeletionVector(
  storage: Pick<TableStorage, 'get'>,
  descriptor: DeletionVectorDescriptor,
): Promise<DeletedRows> {
  let rows: DeletedRows;
  if (descriptor.storageType === 'i') {
    rows = parseRoaringBitmapArray(decodeZ85(descriptor.pathOrInlineDv, descriptor.sizeInBytes));
  } else {
    const file = deletionVectorFile(descriptor);
    if (file === null) throw new InvalidDeletionVector(`unknown storage type ${descriptor.storageType}`);
    rows = parseDeletionVectorFile(await storage.get(file), descriptor.offset ?? 0, descriptor.sizeInBytes);
  }
  if (rows.cardinality !== descriptor.cardinality)
    throw new InvalidDeletionVector(`${rows.cardinality} rows where the log says ${descriptor.cardinality}`);
  return rows;
}

/** The deleted rows of a live file: none without a DV. */
export async function deletedRowsOf(
  storage: Pick<TableStorage, 'get'>,
  file: { deletionVector?: DeletionVectorDescriptor | undefined },
): Promise<DeletedRows> {
  return file.deletionVector ? readDeletionVector(storage, file.deletionVector) : DeletedRows.none;
}
