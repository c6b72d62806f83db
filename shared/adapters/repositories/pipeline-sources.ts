/**
 * What pipeline runs and queries read: webhook data sets' Delta snapshots, commits and envelopes
 * (message id, content type, raw payload) from the tenant's store. Envelope files are read with
 * hyparquet, so API functions (column suggestions) read them as the job runner does.
 */
import { commitsAfter, openSnapshot } from '../../domain/delta/snapshot.ts';
import type { SourceReader } from '../../domain/pipelines/run-pipeline.ts';
import { getDataSet } from '../dynamo/data-sets.ts';
import { readEnvelopeFile } from '../parquet/envelope-reader.ts';
import { tableFiles, tableReader } from '../table-storage.ts';

export const pipelineSources: SourceReader = {
  getDataSet,
  snapshotOf: async (dataSet) => (await openSnapshot(await tableReader(dataSet))).state,
  commitsAfter: async (dataSet, version, maxCommits) => commitsAfter(await tableReader(dataSet), version, maxCommits),
  async readEnvelopes(dataSet, file) {
    const events = await readEnvelopeFile(await (await tableFiles(dataSet)).get(file.path));
    return events.map((event) => ({
      message_id: event.message_id,
      content_type: event.content_type,
      payload: Buffer.from(event.payload, 'base64'),
    }));
  },
};
