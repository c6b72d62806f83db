/**
 * A table's staged envelopes, read back from the objects that hold them (shared/domain/ingest/
 * staging.ts): the events view lists them as pending, and the dead-letter recorder asks whether a
 * copy of an envelope still waits for its commit. Reads the table's records, then each slice once.
 */
import { type EnvelopeMessage, envelopeMessage } from '../domain/ingest/envelope.ts';
import { StagedObjectGone, type StagedRecord } from '../domain/ingest/staging.ts';
import { stagedRecordsOf } from './dynamo/staged-slices.ts';
import { stagingObjects } from './s3/staging.ts';

export interface StagedSliceOf {
  record: StagedRecord;
  read(): Promise<EnvelopeMessage[]>;
}

/** The table's slices not yet committed, each with a reader of its envelopes. */
export async function stagedSlices(tableId: string): Promise<StagedSliceOf[]> {
  return (await stagedRecordsOf(tableId)).map((record) => ({
    record,
    async read() {
      const text = (await stagingObjects.read(record.key, record.offset, record.length)).toString('utf8');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => envelopeMessage.parse(JSON.parse(line)));
    },
  }));
}

/** Whether a copy of the envelope waits staged for its table's commit. */
export async function isStaged(envelope: Pick<EnvelopeMessage, 'data_set_id' | 'message_id'>): Promise<boolean> {
  for (const slice of await stagedSlices(envelope.data_set_id)) {
    // An object removed since the records were read held committed records only.
    const envelopes = await slice.read().catch((error: Error) => {
      if (error instanceof StagedObjectGone) return [];
      throw error;
    });
    if (envelopes.some((staged) => staged.message_id === envelope.message_id)) return true;
  }
  return false;
}
