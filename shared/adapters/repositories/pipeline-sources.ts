/**
 * What pipeline runs and queries read: webhook data sets' Delta snapshots, commits and envelopes
 * (message id, content type, raw payload) from the tenant's store, whoever wrote them: a table
 * Tributary cannot read is refused with the reason, and rows another engine deleted with a deletion
 * vector are left out. Envelope files are read with hyparquet, so API functions (column
 * suggestions) read them as the job runner does.
 */
import { deletedRowsOf } from '#delta/kernel/deletion-vectors.ts';
import { readSupport } from '#delta/kernel/features.ts';
import { type AddFile, appendedFiles, type RemoveFile, rewrittenFiles } from '#delta/kernel/log.ts';
import { commitsAfter, openSnapshot, type TableState } from '#delta/kernel/snapshot.ts';
import type { TableStorage } from '#delta/kernel/storage.ts';
import { conflict } from '../../domain/errors.ts';
import { JobFailure } from '../../domain/jobs/run-job.ts';
import type { EnvelopeFile, PipelineRunDeps, SourceReader } from '../../domain/pipelines/run-pipeline.ts';
import { getDataSet } from '../dynamo/data-sets.ts';
import { readEnvelopeFile } from '../parquet/envelope-reader.ts';
import { tableReader } from '../table-storage.ts';
import { fileView, snapshotView } from '../table-views.ts';

function readable(state: TableState): TableState {
  const support = readSupport(state.protocol, state.metadata);
  if (!support.ok) throw conflict(support.message);
  return state;
}

/**
 * A file the run must read that the source's maintenance deleted (a file is vacuumed a week after a
 * compaction or another engine removed it): the pipeline fell more than a week behind its source, and
 * no later run finds the file either. Said plainly, with the way out.
 */
const sourceFileGone = (path: string) =>
  new JobFailure(
    `The source's file ${path} was deleted by its maintenance before this pipeline read it (removed files are vacuumed after a week): the pipeline is too far behind its source. Give the output a new name and deploy: the new output is filled from the source's latest snapshot`,
  );

function envelopeFile(storage: Pick<TableStorage, 'get' | 'getIfExists'>, add: AddFile): EnvelopeFile {
  return {
    ...fileView(add),
    async readEnvelopes() {
      // The file first: gone, its deletion vector is likely gone too, and the file is what to name.
      const bytes = await storage.getIfExists(add.path);
      if (!bytes) throw sourceFileGone(add.path);
      const [events, deleted] = await Promise.all([readEnvelopeFile(bytes), deletedRowsOf(storage, add)]);
      return events
        .filter((_, row) => !deleted.has(row))
        .map((event) => ({
          message_id: event.message_id,
          content_type: event.content_type,
          payload: Buffer.from(event.payload, 'base64'),
          headers: event.headers,
        }));
    },
  };
}

/** A removed file as the add it undoes: its rows, less those its deletion vector had removed before. */
const removedFile = (remove: RemoveFile): AddFile => ({
  ...remove,
  modificationTime: remove.deletionTimestamp,
  dataChange: true,
  stats: null,
});

export const pipelineSources: SourceReader & Pick<PipelineRunDeps, 'snapshotOf'> = {
  getDataSet,
  snapshotOf: async (dataSet) => snapshotView(readable((await openSnapshot(await tableReader(dataSet))).state)),
  async envelopeFiles(dataSet, version) {
    const reader = await tableReader(dataSet);
    const { state } = await openSnapshot(reader, version === undefined ? {} : { version });
    return [...readable(state).files.values()].map((add) => envelopeFile(reader.storage, add));
  },
  async commitsAfter(dataSet, version, maxCommits) {
    const reader = await tableReader(dataSet);
    readable((await openSnapshot(reader)).state);
    return (await commitsAfter(reader, version, maxCommits)).map((commit) => ({
      version: commit.version,
      added: appendedFiles(commit.actions).map((add) => envelopeFile(reader.storage, add)),
      removed: rewrittenFiles(commit.actions).map((remove) => envelopeFile(reader.storage, removedFile(remove))),
    }));
  },
};
