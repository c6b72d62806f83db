/**
 * An append-only journal of JSON lines with group commit, for the SQS stand-in.
 *
 *  - `append` resolves only once its line is on disk (written and fdatasync'ed). Lines appended while
 *    a flush is under way wait and go together in the next one, so many concurrent callers share one
 *    fdatasync (group commit) and throughput does not collapse to one request per disk flush.
 *  - `open` replays the file. A crash can leave the tail of the last flush half-written; that tail
 *    was never acknowledged, so replay stops at the first line that is not whole JSON and drops it.
 *  - The journal is compacted (at open, and when it has grown to many times the live state): the
 *    current state is written as a fresh journal beside it, flushed, and renamed over the old one,
 *    so a crash at any moment leaves either the old journal or the new one, never a mix.
 *  - A failed write or flush leaves the file in an unknown state: the journal refuses every later
 *    append, and the stand-in exits rather than answer anything it cannot keep.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';

export interface JournalOptions {
  directory: string;
  /** Compact once the file is larger than this many bytes … */
  compactAfterBytes?: number;
  /** … and larger than this many times the state a compaction would write. */
  compactRatio?: number;
}

interface Pending {
  line: string;
  /** Runs right after the line is durable, before anything else may happen (see `compact`). */
  applied?: () => void;
  resolve: () => void;
  reject: (error: Error) => void;
}

export interface Replayed<Record> {
  records: Record[];
  /** Bytes at the end of the file that were not whole lines: a flush a crash interrupted. */
  tornBytes: number;
}

export const journalFileName = 'journal.jsonl';

/** What the journal's owner holds in memory, as the records that would rebuild it. */
export interface JournalState {
  /** Every record needed to rebuild the current state, one JSON line each (with its newline). */
  lines(): string[];
  /** About how many bytes `lines()` would take, to judge whether compacting is worth it. */
  liveBytes(): number;
}

/** fsync a directory, so that a file created or renamed in it survives a power cut. */
export function syncDirectory(directory: string): void {
  const descriptor = openSync(directory, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** Reads the journal's whole lines, oldest first. */
export function replayJournal<Record>(directory: string): Replayed<Record> {
  let text: Buffer;
  try {
    text = readFileSync(path.join(directory, journalFileName));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], tornBytes: 0 };
    throw error;
  }
  const records: Record[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf(0x0a, start);
    if (end < 0) break;
    try {
      records.push(JSON.parse(text.subarray(start, end).toString('utf8')) as Record);
    } catch {
      break;
    }
    start = end + 1;
  }
  return { records, tornBytes: text.length - start };
}

export class Journal<Record> {
  private handle: FileHandle | null = null;
  private pending: Pending[] = [];
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  private bytes = 0;
  /** Disk flushes so far: with group commit, far fewer than appends under load. */
  flushes = 0;
  private readonly file: string;

  private constructor(
    private readonly options: JournalOptions,
    private readonly state: JournalState,
    private readonly onFailure: (error: Error) => void,
  ) {
    this.file = path.join(options.directory, journalFileName);
  }

  /**
   * Opens the journal for appending after the caller has replayed it: the state it rebuilt is
   * written at once as a compacted journal (which also drops a torn tail).
   */
  static async open<Record>(
    options: JournalOptions,
    state: JournalState,
    onFailure: (error: Error) => void = () => undefined,
  ): Promise<Journal<Record>> {
    mkdirSync(options.directory, { recursive: true });
    const journal = new Journal<Record>(options, state, onFailure);
    await journal.compact();
    return journal;
  }

  /** Resolves once the record is on disk; `applied` runs at that moment, before any later flush. */
  append(record: Record, applied?: () => void): Promise<void> {
    return this.appendAll([record], applied);
  }

  appendAll(records: Record[], applied?: () => void): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (records.length === 0) {
      applied?.();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const line = records.map((record) => `${JSON.stringify(record)}\n`).join('');
      this.pending.push({ line, applied, resolve, reject });
      this.startFlushing();
    });
  }

  private startFlushing(): void {
    if (this.flushing) return;
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = null;
      // Appended after the loop's last look but before it finished.
      if (this.pending.length > 0 && !this.failure) this.startFlushing();
    });
  }

  /** Waits for every append so far, then closes the file. */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
    await this.handle?.close();
    this.handle = null;
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0 && !this.failure) {
      const batch = this.pending;
      this.pending = [];
      try {
        const buffer = Buffer.from(batch.map((item) => item.line).join(''));
        await this.writeFully(buffer);
        await (this.handle as FileHandle).datasync();
        this.flushes++;
        this.bytes += buffer.length;
      } catch (error) {
        this.fail(error as Error, batch);
        return;
      }
      for (const item of batch) item.applied?.();
      for (const item of batch) item.resolve();
      // Nothing is waiting, so the state in memory is exactly what the journal holds: a safe moment.
      if (this.pending.length === 0 && this.worthCompacting()) {
        try {
          await this.compact();
        } catch (error) {
          this.fail(error as Error, []);
          return;
        }
      }
    }
  }

  private async writeFully(buffer: Buffer): Promise<void> {
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await (this.handle as FileHandle).write(buffer, offset);
      offset += bytesWritten;
    }
  }

  private worthCompacting(): boolean {
    const after = this.options.compactAfterBytes ?? 64 * 1024 * 1024;
    if (this.bytes < after) return false;
    return this.bytes > (this.options.compactRatio ?? 4) * this.state.liveBytes();
  }

  /**
   * Writes the state as a new journal and renames it over the old one. The state is taken
   * synchronously, when no append is waiting, so it holds exactly what the old journal held;
   * appends made while the new file is written wait for the next flush, into the new file.
   */
  private async compact(): Promise<void> {
    const lines = this.state.lines();
    const temporary = `${this.file}.compacting`;
    const descriptor = openSync(temporary, 'w');
    let bytes = 0;
    try {
      // Written in slices, so that a large queue does not need one string of its whole size.
      for (let i = 0; i < lines.length; i += 1000) {
        const buffer = Buffer.from(lines.slice(i, i + 1000).join(''));
        let offset = 0;
        while (offset < buffer.length) offset += writeSync(descriptor, buffer, offset);
        bytes += buffer.length;
      }
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, this.file);
    syncDirectory(this.options.directory);
    await this.handle?.close();
    this.handle = await open(this.file, 'a');
    this.bytes = bytes;
  }

  private fail(error: Error, batch: Pending[]): void {
    this.failure = new Error(`The queue journal ${this.file} could not be written: ${error.message}`);
    for (const item of [...batch, ...this.pending]) item.reject(this.failure);
    this.pending = [];
    this.onFailure(this.failure);
  }
}
