/** A webhook data set's events as the Events view reads them: its snapshot's files in the tenant store. */

import { openSnapshot } from '../../domain/delta/snapshot.ts';
import type { EventReadDeps } from '../../domain/monitoring/events.ts';
import { openCursor, sealCursor } from '../dynamo/cursors.ts';
import { getDataSet } from '../dynamo/data-sets.ts';
import { readEnvelopeFile } from '../parquet/envelope-reader.ts';
import { tableReader } from '../table-storage.ts';

/** Cursors of one data set's events list: a cursor of another list is refused. */
const cursorsOf = (dataSetId: string): EventReadDeps['cursors'] => ({
  seal: (position) => sealCursor(`events#${dataSetId}`, position),
  open: (cursor) => openCursor(`events#${dataSetId}`, cursor),
});

export async function eventsOf(dataSetId: string): Promise<EventReadDeps> {
  const dataSet = await getDataSet(dataSetId);
  const cursors = cursorsOf(dataSetId);
  if (!dataSet?.storage_location || !dataSet.object_store_id)
    return { snapshotFiles: async () => [], readEvents: async () => [], cursors };
  const reader = await tableReader(dataSet);
  return {
    // As GET /api/data-sets/{id}/files: the live files of the latest snapshot (from its checkpoint on).
    snapshotFiles: async () => [...(await openSnapshot(reader)).state.files.values()],
    readEvents: async (file) => readEnvelopeFile(await reader.storage.get(file.path)),
    cursors,
  };
}
