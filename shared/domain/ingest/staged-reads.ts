/**
 * Reads of staged slices for committers. A writer batch holds one slice of each of its tables (dozens
 * at sparse traffic), and each table is committed on its own, when its own target says: read as
 * slices, that is a GET per table and batch. A warm committer instance keeps the small objects it
 * read whole (a GET costs the same whatever its length), least recently used first within a bound
 * of bytes, so the other tables of the same batches read them from memory.
 */
import type { StagedRecord, StagingObjects } from './staging.ts';

export interface StagedReadLimits {
  /** Objects up to this size are read whole and kept. */
  wholeMaxBytes: number;
  /** Bytes of whole objects kept at most. */
  keptMaxBytes: number;
}

export class StagedReads {
  private readonly kept = new Map<string, Promise<Buffer>>();
  private readonly sizes = new Map<string, number>();
  private held = 0;

  constructor(
    private readonly objects: Pick<StagingObjects, 'read'>,
    private readonly limits: StagedReadLimits,
  ) {}

  /** The record's slice of its staged object. */
  async read(record: Pick<StagedRecord, 'key' | 'offset' | 'length' | 'objectSize'>): Promise<Buffer> {
    const cached = this.kept.get(record.key);
    if (cached) {
      // Most recently used last.
      this.kept.delete(record.key);
      this.kept.set(record.key, cached);
      const whole = await cached;
      if (whole.length >= record.offset + record.length)
        return whole.subarray(record.offset, record.offset + record.length);
    }
    const size = record.objectSize;
    if (size > this.limits.wholeMaxBytes) return this.objects.read(record.key, record.offset, record.length);
    const whole = this.objects.read(record.key, 0, size);
    this.keep(record.key, whole, size);
    return (await whole).subarray(record.offset, record.offset + record.length);
  }

  private keep(key: string, bytes: Promise<Buffer>, size: number): void {
    this.kept.set(key, bytes);
    this.sizes.set(key, size);
    this.held += size;
    // A failed read is not kept: the next table that needs the object reads it again.
    bytes.catch(() => this.forget(key));
    for (const oldest of this.kept.keys()) {
      if (this.held <= this.limits.keptMaxBytes) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    if (!this.kept.delete(key)) return;
    this.held -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
  }
}
