/**
 * How a commit becomes a version: the log store decides which of the writers racing for a version
 * gets it, and no log entry is ever overwritten (the protocol's first rule). Where the store honours
 * conditional writes (`If-None-Match: *`) the store itself is the arbiter (conditionalArbiter);
 * where it does not, claims in a database are (coordinated.ts). An application may wrap either.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalWritesUnsupported } from '../errors.ts';
import { logFileName } from '../kernel/log.ts';
import type { TableStorage } from '../kernel/storage.ts';

/** Decides which commit becomes a version. */
export interface LogArbiter {
  /**
   * The version the snapshot must reach before a commit: null to trust the snapshot as it is (the
   * store's own condition catches anything newer), or the newest claimed version, whose log file
   * exists once this answers (a claim left half-way by a stopped writer is finished here).
   */
  settle(tableId: string): Promise<number | null>;
  /** Makes `content` the table's `version` unless another commit holds it. */
  write(tableId: string, version: number, content: string, runId: string): Promise<boolean>;
}

/** The store is the arbiter: `_delta_log/<version>.json` is written only if absent. */
export function conditionalArbiter(storage: Pick<TableStorage, 'putIfAbsent'>): LogArbiter {
  return {
    settle: async () => null,
    write: (_, version, content) => storage.putIfAbsent(logFileName(version), content, 'application/json'),
  };
}

/**
 * Whether the store honours `If-None-Match: *`: a fresh object is written once, and the second
 * conditional write of it must be refused. A store that ignores the condition (it writes twice) or
 * says it does not implement it does not support conditional writes. Asked once per store.
 */
export async function probeConditionalWrites(storage: Pick<TableStorage, 'putIfAbsent' | 'delete'>): Promise<boolean> {
  const key = `_delta_log/.tmp/conditional-write-probe.${randomUUID()}`;
  try {
    if (!(await storage.putIfAbsent(key, 'first', 'text/plain'))) return false;
    return !(await storage.putIfAbsent(key, 'second', 'text/plain'));
  } catch (error) {
    if (error instanceof ConditionalWritesUnsupported) return false;
    throw error;
  } finally {
    await storage.delete([key]).catch(() => undefined);
  }
}
