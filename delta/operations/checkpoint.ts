/**
 * Classic single-file Parquet checkpoints (protocol "Checkpoints"):
 * `_delta_log/<version>.checkpoint.parquet` holds one row per action of the table's state at that
 * version — the protocol (with its table features), the metadata, every txn, every metadata domain,
 * every live file's add (with partition values, stats and whatever another writer set on it: tags,
 * deletion vector, row ids), and the remove tombstones that have not expired — and
 * `_delta_log/_last_checkpoint` points at the newest one. On a table with the v2Checkpoint feature
 * it follows the V2 spec (a checkpointMetadata row, every file action inline), which a classic name
 * may hold; multi-part checkpoints, which that feature forbids, are never written. Written every `delta.checkpointInterval` versions by whoever completes
 * such a version, after its JSON commit exists; writing it again gives the same content.
 *
 * Tombstones are kept in checkpoints for twice the deleted-file retention: the protocol requires
 * the unexpired ones, and the extra time lets the scheduled vacuum see every removed file before
 * its tombstone leaves the state (a file whose tombstone vanished unseen would never be deleted).
 */
import {
  type AddFile,
  type CheckpointMetadata,
  checkpointFileName,
  type DomainMetadata,
  lastCheckpointFile,
  type Metadata,
  type Protocol,
  type RemoveFile,
  type Txn,
} from '../kernel/log.ts';
import { readLastCheckpoint, type TableState } from '../kernel/snapshot.ts';
import type { TableStorage } from '../kernel/storage.ts';
import { tableConfig } from '../kernel/table-config.ts';

export interface CheckpointContent {
  protocol: Protocol;
  metadata: Metadata;
  /** V2 spec only (tables with the v2Checkpoint feature). */
  checkpointMetadata: CheckpointMetadata | null;
  domainMetadata: DomainMetadata[];
  txns: Txn[];
  adds: AddFile[];
  removes: RemoveFile[];
}

/** Encodes checkpoint rows as Parquet (parquet-wasm, an explicit Arrow schema); only writers load it. */
export type CheckpointEncoder = (content: CheckpointContent) => Uint8Array;

export interface LastCheckpoint {
  version: number;
  /** Rows (actions) in the checkpoint. */
  size: number;
  sizeInBytes: number;
  numOfAddFiles: number;
}

export function checkpointDue(version: number, state: Pick<TableState, 'metadata'>): boolean {
  const interval = tableConfig(state.metadata?.configuration ?? {}).checkpointInterval;
  return version > 0 && version % interval === 0;
}

/** How long tombstones stay in checkpoints (see the module comment). */
export function tombstoneKeepMs(state: Pick<TableState, 'metadata'>): number {
  return 2 * tableConfig(state.metadata?.configuration ?? {}).deletedFileRetentionMs;
}

export function checkpointContent(state: TableState, now: number): CheckpointContent {
  if (!state.protocol || !state.metadata) throw new Error(`Version ${state.version} has no protocol or metadata`);
  const keepAfter = now - tombstoneKeepMs(state);
  const v2 = state.protocol.readerFeatures?.includes('v2Checkpoint') ?? false;
  return {
    protocol: state.protocol,
    metadata: state.metadata,
    checkpointMetadata: v2 ? { version: state.version, tags: null } : null,
    domainMetadata: [...state.domainMetadata.values()],
    txns: [...state.txns.values()],
    adds: [...state.files.values()],
    removes: [...state.tombstones.values()].filter((remove) => remove.deletionTimestamp > keepAfter),
  };
}

/**
 * Writes the checkpoint of `state` and moves `_last_checkpoint` forward to it (never back: a slower
 * writer of an older checkpoint leaves a newer pointer alone).
 */
export async function writeCheckpoint(
  storage: Pick<TableStorage, 'put' | 'getIfExists'>,
  encode: CheckpointEncoder,
  state: TableState,
  now: number,
): Promise<LastCheckpoint> {
  const content = checkpointContent(state, now);
  const bytes = encode(content);
  await storage.put(checkpointFileName(state.version), bytes, 'application/vnd.apache.parquet');
  const last: LastCheckpoint = {
    version: state.version,
    size:
      2 +
      (content.checkpointMetadata ? 1 : 0) +
      content.domainMetadata.length +
      content.txns.length +
      content.adds.length +
      content.removes.length,
    sizeInBytes: bytes.length,
    numOfAddFiles: content.adds.length,
  };
  const currentVersion = (await readLastCheckpoint({ storage }))?.version ?? -1;
  if (currentVersion < state.version) await storage.put(lastCheckpointFile, JSON.stringify(last), 'application/json');
  return last;
}
