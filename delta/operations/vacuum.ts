/**
 * Deleting what no reader needs any more: the vacuum deletes files removed longer ago than
 * `delta.deletedFileRetentionDuration`, and files beside them that no version references and that
 * are older than that (left by writers that stopped before their commit). Whoever wrote the table,
 * a file a live add names (its data file or its deletion vector's) is never deleted, nor anything
 * under a hidden directory (`_delta_log`, `_change_data`, …) or outside the table. The log clean-up
 * deletes commits and checkpoints older than `delta.logRetentionDuration` when a later checkpoint,
 * itself that old, covers them (protocol "Metadata Cleanup"), and temporary commits once their
 * version is well behind.
 */
import { deletionVectorFile } from '../kernel/deletion-vectors.ts';
import { type AddFile, type RemoveFile, versionOfLogFile } from '../kernel/log.ts';
import { type LogReader, type TableState, tableObjectKey } from '../kernel/snapshot.ts';
import type { TableStorage } from '../kernel/storage.ts';

export interface VacuumDeps {
  /** The table's log and objects, read (its root: a path in the log may be absolute). */
  reader: LogReader;
  /** Where the objects are deleted. */
  storage: Pick<TableStorage, 'delete'>;
  now: () => Date;
}

/** A directory or file Delta keeps out of the data: `_delta_log`, `_change_data`, `.tmp`, … (and everything under them). */
const hidden = (key: string) => key.split('/').some((segment) => segment.startsWith('_') || segment.startsWith('.'));
const directoryOf = (key: string) => key.slice(0, Math.max(0, key.lastIndexOf('/')));

/**
 * Deletes files removed longer ago than the retention, and unreferenced old files beside them.
 * What a live add names, its data file and its deletion vector's file, is never deleted, whatever
 * tombstone also names it (a DELETE removes (path, no DV) and re-adds (path, DV)); nor what an
 * unexpired tombstone names (readers of older versions), nor a file outside the table.
 */
/**
 * The least age of a file no version references before it is deleted, whatever the table's retention says: a writer's
 * file is unreferenced until its commit lands, and a Spark job (or a writer waiting out a slow store) can take hours
 * to commit. Spark refuses a VACUUM under 168 hours for the same reason.
 */
export const strayFileMinAgeMs = 7 * 24 * 3_600_000;

export async function vacuum(deps: VacuumDeps, state: TableState, retentionMs: number): Promise<number> {
  const before = deps.now().getTime() - retentionMs;
  const strayBefore = Math.min(before, deps.now().getTime() - strayFileMinAgeMs);
  const objectKey = (path: string) => tableObjectKey(path, deps.reader.root);
  const filesOf = (file: AddFile | RemoveFile) =>
    [file.path, file.deletionVector ? deletionVectorFile(file.deletionVector) : null]
      .map((path) => (path === null ? null : objectKey(path)))
      .filter((key): key is string => key !== null);
  const keep = new Set<string>();
  for (const file of state.files.values()) for (const key of filesOf(file)) keep.add(key);
  const expired: string[] = [];
  for (const remove of state.tombstones.values()) {
    if (remove.deletionTimestamp < before) expired.push(...filesOf(remove));
    else for (const key of filesOf(remove)) keep.add(key);
  }
  const doomed = new Set(expired.filter((key) => !keep.has(key) && !hidden(key)));
  // Files no version references, directly in a directory an expired file was in (not the root,
  // which would mean listing the whole table), older than the retention and than a week (strayFileMinAgeMs).
  for (const directory of new Set(expired.map(directoryOf))) {
    if (directory === '' || hidden(directory)) continue;
    for (const object of await deps.reader.storage.list(`${directory}/`)) {
      const stray =
        directoryOf(object.key) === directory &&
        !hidden(object.key) &&
        !keep.has(object.key) &&
        object.lastModified < strayBefore;
      if (stray) doomed.add(object.key);
    }
  }
  if (doomed.size > 0) await deps.storage.delete([...doomed]);
  return doomed.size;
}

/**
 * Deletes log files that no reader within the retention needs: commits and checkpoints before the
 * newest checkpoint that is older than the cut-off (keeping that checkpoint and its commit), and
 * temporary commits of versions before it.
 */
export async function cleanLog(deps: VacuumDeps, state: TableState, retentionMs: number): Promise<number> {
  const cutoff = deps.now().getTime() - retentionMs;
  const old: { key: string; version: number; kind: 'commit' | 'checkpoint' }[] = [];
  // Oldest first: the listing stops at the first file inside the retention.
  for (const object of await deps.reader.storage.list('_delta_log/', { startAfter: '_delta_log/0', limit: 20_000 })) {
    const parsed = versionOfLogFile(object.key);
    if (!parsed) continue;
    if (object.lastModified > cutoff) break;
    old.push({ key: object.key, ...parsed });
  }
  const cutoffCommit = Math.max(-1, ...old.filter((file) => file.kind === 'commit').map((file) => file.version));
  const cutoffCheckpoint = Math.max(
    -1,
    ...old.filter((file) => file.kind === 'checkpoint' && file.version <= cutoffCommit).map((file) => file.version),
  );
  const doomed =
    cutoffCheckpoint > 0 ? old.filter((file) => file.version < cutoffCheckpoint).map((file) => file.key) : [];
  // A temporary commit matters only while its version may still be finalised: the latest few.
  for (const object of await deps.reader.storage.list('_delta_log/.tmp/', { limit: 20_000 })) {
    const version = Number(/\.tmp\/(\d{20})\.json\./.exec(object.key)?.[1] ?? Number.NaN);
    if (Number.isNaN(version) || version >= state.version - 10) break;
    doomed.push(object.key);
  }
  if (doomed.length > 0) await deps.storage.delete(doomed);
  return doomed.length;
}
