import { describe, expect, it } from 'vitest';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { type DeadLetterDeps, recordDeadLetter } from '#shared/domain/monitoring/failed-deliveries.ts';
import type { DeliveryFailure, FailedDelivery } from '#shared/domain/monitoring/model.ts';

const envelope: EnvelopeMessage = {
  v: 1,
  message_id: '00000000-0000-4000-8000-000000000001',
  data_set_id: '00000000-0000-4000-8000-0000000000d5',
  dt: '2026-11-23',
  ingested_at_us: '1795435200000000',
  source_id: 'src',
  tenant_id: '00000000-0000-4000-8000-00000000000a',
  content_type: 'application/json',
  payload_size: 2,
  payload: 'e30=',
};

/** The recorder's ports in memory: what is written, staged, failed; what it records. */
function world(options: {
  written?: boolean;
  staged?: boolean;
  failure?: DeliveryFailure | null;
  /** The staged copy is committed (and its object removed) while the recorder looks for it. */
  committedMeanwhile?: boolean;
}) {
  const recorded: FailedDelivery[] = [];
  const deps: DeadLetterDeps = {
    writtenMessageIds: async (_, ids) => new Set(options.written ? ids : []),
    isStaged: async () => {
      if (options.committedMeanwhile) options.written = true;
      return options.staged ?? false;
    },
    lastDeliveryFailure: async () => options.failure ?? null,
    getSource: async () => null,
    connectionOfDataSet: async () => 'connection',
    resolvePayload: async () => null,
    keepEnvelope: async (dataSetId, messageId) => `dead-letters/${dataSetId}/${messageId}.json`,
    recordFailedDelivery: async (failed) => {
      recorded.push(failed);
      return true;
    },
    countDeadLettered: async () => undefined,
  };
  return { deps, recorded };
}

const failure: DeliveryFailure = {
  message_id: envelope.message_id,
  data_set_id: envelope.data_set_id,
  error: 'STORE_UNAVAILABLE: The object store is failing or throttling; writes are retried',
  store: 's3://lake/datasets/x',
  attempt: 5,
  at: '2026-11-23T12:00:00.000Z',
};

describe('recording a dead letter', () => {
  it('records an envelope whose commits failed, with the last error and the store', async () => {
    const { deps, recorded } = world({ failure, staged: true });
    const failed = await recordDeadLetter(deps, envelope, new Date('2026-11-23T12:01:00.000Z'));
    expect(failed).toMatchObject({
      message_id: envelope.message_id,
      connection_id: 'connection',
      attempts: 5,
      last_error: `${failure.error} (store s3://lake/datasets/x)`,
    });
    expect(recorded).toHaveLength(1);
  });

  it('records nothing for an envelope already in its table', async () => {
    const { deps, recorded } = world({ written: true });
    expect(await recordDeadLetter(deps, envelope)).toBeNull();
    expect(recorded).toEqual([]);
  });

  it('records nothing for an envelope the queue gave up on while a copy of it waits staged', async () => {
    const { deps, recorded } = world({ staged: true });
    expect(await recordDeadLetter(deps, envelope)).toBeNull();
    expect(recorded).toEqual([]);
  });

  it('records nothing for an envelope whose staged copy is committed while the recorder looks for it', async () => {
    const { deps, recorded } = world({ committedMeanwhile: true });
    expect(await recordDeadLetter(deps, envelope)).toBeNull();
    expect(recorded).toEqual([]);
  });

  it('records an envelope the queue gave up on that nothing else holds', async () => {
    const { deps, recorded } = world({});
    expect(await recordDeadLetter(deps, envelope)).toMatchObject({
      last_error: 'No failure was recorded for this envelope',
    });
    expect(recorded).toHaveLength(1);
  });
});
