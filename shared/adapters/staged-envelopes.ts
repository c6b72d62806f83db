/**
 * A table's staged envelopes, read back from the batches that hold them (shared/domain/ingest/
 * staging.ts): the events view lists them as pending, and the dead-letter recorder asks whether a
 * copy of an envelope still waits for its commit. Reads the ledger, then each slice once.
 */
import { type EnvelopeMessage, envelopeMessage } from '../domain/ingest/envelope.ts';
import type { StagedBatch, StagedSlice } from '../domain/ingest/staging.ts';
import { stagedSlicesOf } from './dynamo/staging-ledger.ts';
import { stagingObjects } from './s3/staging.ts';

export interface StagedSliceOf {
  batch: StagedBatch;
  slice: StagedSlice;
  read(): Promise<EnvelopeMessage[]>;
}

/** The table's slices not yet committed, each with a reader of its envelopes. */
export async function stagedSlices(tableId: string, options: { recent?: boolean } = {}): Promise<StagedSliceOf[]> {
  return (await stagedSlicesOf(tableId, options)).map(({ batch, slice }) => ({
    batch,
    slice,
    async read() {
      const text = (await stagingObjects.read(batch.key, slice.offset, slice.length)).toString('utf8');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => envelopeMessage.parse(JSON.parse(line)));
    },
  }));
}

/** Whether a copy of the envelope waits staged for its table's commit. */
export async function isStaged(envelope: Pick<EnvelopeMessage, 'data_set_id' | 'message_id'>): Promise<boolean> {
  for (const slice of await stagedSlices(envelope.data_set_id))
    if ((await slice.read()).some((staged) => staged.message_id === envelope.message_id)) return true;
  return false;
}
