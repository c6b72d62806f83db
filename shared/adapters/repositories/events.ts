/**
 * A webhook data set's events as the Events view reads them: its snapshot's files in the tenant
 * store, and the staged batches (platform bucket) holding envelopes not committed yet.
 */

import { deletedRowsOf } from '#delta/kernel/deletion-vectors.ts';
import { readSupport } from '#delta/kernel/features.ts';
import { type AddFile, parseStats } from '#delta/kernel/log.ts';
import { type LogReader, openSnapshot } from '#delta/kernel/snapshot.ts';
import type { TableStorage } from '#delta/kernel/storage.ts';
import { conflict } from '../../domain/errors.ts';
import { recordTime, StagedObjectGone } from '../../domain/ingest/staging.ts';
import type { EventReadDeps, StagedSource } from '../../domain/monitoring/events.ts';
import { openCursor, sealCursor } from '../dynamo/cursors.ts';
import { getDataSet } from '../dynamo/data-sets.ts';
import { envelopeGroups } from '../parquet/envelope-reader.ts';
import { claimedPayload } from '../s3/claim-checks.ts';
import type { TableLocation } from '../s3/tenant-stores.ts';
import { stagedSlices } from '../staged-envelopes.ts';
import { tableReader } from '../table-storage.ts';

async function stagedSources(dataSetId: string): Promise<StagedSource[]> {
  return (await stagedSlices(dataSetId)).map(({ record, read }) => ({
    oldest: record.oldest,
    // A record is written once its envelopes are staged: none is newer than its id's time.
    stagedAt: recordTime(record.id),
    size: record.length,
    async read() {
      let messages: Awaited<ReturnType<typeof read>>;
      try {
        messages = await read();
      } catch (error) {
        // Removed since the records were read (committed): listed from the table.
        if (error instanceof StagedObjectGone) return [];
        throw error;
      }
      return Promise.all(
        messages.map(async (message) => ({
          message_id: message.message_id,
          ingested_at_us: BigInt(message.ingested_at_us),
          content_type: message.content_type,
          payload_size: message.payload_size,
          // A claim-checked body is in the platform bucket until its envelope is committed.
          payload: message.payload ?? (message.payload_ref ? ((await claimedPayload(message.payload_ref)) ?? '') : ''),
          headers: message.headers ?? null,
        })),
      );
    },
  }));
}

/** Cursors of one data set's events list: a cursor of another list is refused. */
const cursorsOf = (dataSetId: string): EventReadDeps['cursors'] => ({
  seal: (position) => sealCursor(`events#${dataSetId}`, position),
  open: (cursor) => openCursor(`events#${dataSetId}`, cursor),
});

/**
 * The table's files and rows as the Events view reads them, whoever wrote them: the live files of
 * the latest snapshot (from its checkpoint on) with their statistics, a table Tributary cannot read
 * refused with the reason (409), each file read by byte ranges (its footer, then the columns and
 * pages wanted), and the rows another engine deleted with a deletion vector left out. Counts the
 * bytes it fetched.
 */
export function tableEvents(
  reader: LogReader & { storage: Pick<TableStorage, 'get'> & Pick<TableLocation, 'getRange'> },
): Omit<EventReadDeps, 'cursors' | 'stagedSources'> {
  let fetched = 0;
  const groupsOf = async (file: AddFile) => {
    const deleted = await deletedRowsOf(reader.storage, file);
    return envelopeGroups(
      {
        byteLength: file.size,
        read: (start, end) => {
          fetched += end - start;
          return reader.storage.getRange(file.path, start, end);
        },
      },
      (row) => deleted.has(row),
    );
  };
  return {
    snapshotFiles: async () => {
      const { state } = await openSnapshot(reader);
      const support = readSupport(state.protocol, state.metadata);
      if (!support.ok) throw conflict(support.message);
      return [...state.files.values()].map((add) => ({
        size: add.size,
        stats: parseStats(add.stats),
        groups: () => groupsOf(add),
      }));
    },
    bytesFetched: () => fetched,
  };
}

export async function eventsOf(dataSetId: string): Promise<EventReadDeps> {
  const dataSet = await getDataSet(dataSetId);
  const cursors = cursorsOf(dataSetId);
  if (!dataSet?.storage_location || !dataSet.object_store_id)
    return {
      snapshotFiles: async () => [],
      stagedSources: () => stagedSources(dataSetId),
      cursors,
    };
  return { ...tableEvents(await tableReader(dataSet)), stagedSources: () => stagedSources(dataSetId), cursors };
}
