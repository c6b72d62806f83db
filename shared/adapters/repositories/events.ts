/** A webhook data set's events as the Events view reads them: its snapshot's files in the tenant store. */
import type { EventReadDeps } from '../../domain/monitoring/events.ts';
import { openCursor, sealCursor } from '../dynamo/cursors.ts';
import { getDataSet } from '../dynamo/data-sets.ts';
import { deltaLog } from '../dynamo/delta-log.ts';
import { readEnvelopeFile } from '../parquet/envelope-reader.ts';
import { tableFiles } from '../table-storage.ts';

/** Cursors of one data set's events list: a cursor of another list is refused. */
const cursorsOf = (dataSetId: string): EventReadDeps['cursors'] => ({
  seal: (position) => sealCursor(`events#${dataSetId}`, position),
  open: (cursor) => openCursor(`events#${dataSetId}`, cursor),
});

export async function eventsOf(dataSetId: string): Promise<EventReadDeps> {
  const dataSet = await getDataSet(dataSetId);
  const cursors = cursorsOf(dataSetId);
  if (!dataSet?.storage_location || !dataSet.object_store_id)
    return { snapshotFiles: async () => [], readEvents: async () => [], isWritten: async () => false, cursors };
  const files = await tableFiles(dataSet);
  return {
    // As GET /api/data-sets/{id}/files: every file added by a completed commit.
    async snapshotFiles() {
      const entries = await deltaLog.allEntries(dataSetId);
      return entries.filter((entry) => entry.complete).flatMap((entry) => entry.adds);
    },
    readEvents: async (file) => readEnvelopeFile(await files.get(file.path)),
    isWritten: async (messageId) => (await deltaLog.writtenMessageIds(dataSetId, [messageId])).has(messageId),
    cursors,
  };
}
