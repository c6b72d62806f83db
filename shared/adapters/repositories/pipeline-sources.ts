/**
 * What pipeline runs and queries read: webhook data sets' Delta snapshots, commits and envelopes
 * (message id, content type, raw payload) from the tenant's store, whoever wrote them: a table
 * Tributary cannot read is refused with the reason, and rows another engine deleted with a deletion
 * vector are left out. Envelope files are read with hyparquet, so API functions (column
 * suggestions) read them as the job runner does.
 */
import { deletedRowsOf } from '#delta/deletion-vectors.ts';
import { readSupport } from '#delta/features.ts';
import { commitsAfter, openSnapshot, type TableState } from '#delta/snapshot.ts';
import { conflict } from '../../domain/errors.ts';
import type { SourceReader } from '../../domain/pipelines/run-pipeline.ts';
import { getDataSet } from '../dynamo/data-sets.ts';
import { readEnvelopeFile } from '../parquet/envelope-reader.ts';
import { tableFiles, tableReader } from '../table-storage.ts';

function readable(state: TableState): TableState {
  const support = readSupport(state.protocol, state.metadata);
  if (!support.ok) throw conflict(support.message);
  return state;
}

export const pipelineSources: SourceReader = {
  getDataSet,
  snapshotOf: async (dataSet, version) =>
    readable((await openSnapshot(await tableReader(dataSet), version === undefined ? {} : { version })).state),
  async commitsAfter(dataSet, version, maxCommits) {
    const reader = await tableReader(dataSet);
    readable((await openSnapshot(reader)).state);
    return commitsAfter(reader, version, maxCommits);
  },
  async readEnvelopes(dataSet, file) {
    const storage = await tableFiles(dataSet);
    const [events, deleted] = await Promise.all([
      storage.get(file.path).then(readEnvelopeFile),
      deletedRowsOf(storage, file),
    ]);
    return events
      .filter((_, row) => !deleted.has(row))
      .map((event) => ({
        message_id: event.message_id,
        content_type: event.content_type,
        payload: Buffer.from(event.payload, 'base64'),
      }));
  },
};
