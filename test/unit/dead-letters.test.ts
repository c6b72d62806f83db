import { describe, expect, it } from 'vitest';
import type { Source } from '#shared/domain/connections/model.ts';
import { type EnvelopeMessage, readEnvelope } from '#shared/domain/ingest/envelope.ts';
import type { DeliveryFailure, FailedDelivery } from '#shared/domain/ingest/kept-records.ts';
import {
  type DeadLetterDeps,
  type KeptMessage,
  recordDeadLetter,
  recordDeadLetterMessage,
} from '#shared/domain/monitoring/failed-deliveries.ts';

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
  /** The first count fails, as a recorder that crashed after recording would leave it. */
  crashOnCount?: boolean;
  /** The source's connection exists (else it was deleted), and the data set. */
  source?: boolean;
  dataSet?: boolean;
}) {
  /** Counts are kept once per failure, as countOnce keeps them in the table. */
  const countedFailures = new Set<string>();
  const recorded: FailedDelivery[] = [];
  const kept = new Map<string, KeptMessage | string>();
  const counted: string[] = [];
  const deps: DeadLetterDeps = {
    writtenMessageIds: async (_, ids) => new Set(options.written ? ids : []),
    isStaged: async () => {
      if (options.committedMeanwhile) options.written = true;
      return options.staged ?? false;
    },
    lastDeliveryFailure: async () => options.failure ?? null,
    getSource: async () =>
      options.source ? ({ source_id: 'src', connection_id: 'connection' } as unknown as Source) : null,
    originOfDataSet: async () => ({ connection_id: 'connection', source_id: 'src' }),
    dataSetExists: async () => options.dataSet ?? true,
    resolvePayload: async () => null,
    async keepEnvelope(dataSetId, messageId, message) {
      kept.set(`dead-letters/${dataSetId}/${messageId}.json`, message);
      return `dead-letters/${dataSetId}/${messageId}.json`;
    },
    async keepUnreadable(body, queueMessageId) {
      kept.set(`dead-letters/unreadable/${queueMessageId}.txt`, body);
      return `dead-letters/unreadable/${queueMessageId}.txt`;
    },
    recordFailedDelivery: async (failed) => {
      const earlier = recorded.find((other) => other.message_id === failed.message_id);
      if (earlier) return { now: false, failed_at: earlier.failed_at };
      recorded.push(failed);
      return { now: true, failed_at: failed.failed_at };
    },
    countDeadLettered: async (sourceId, failure) => {
      if (options.crashOnCount) {
        options.crashOnCount = false;
        throw new Error('The recorder stopped between the record and the count');
      }
      if (!countedFailures.has(failure)) counted.push(`deadLettered ${sourceId}`);
      countedFailures.add(failure);
    },
    countUnreadable: async (queueMessageId) => void counted.push(`unreadable ${queueMessageId}`),
  };
  return { deps, recorded, kept, counted };
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

  it('keeps nothing of an envelope whose connection and data set were deleted, and counts it once', async () => {
    const gone = world({ failure, dataSet: false });
    expect(await recordDeadLetter(gone.deps, envelope)).toBeNull();
    expect(await recordDeadLetter(gone.deps, envelope)).toBeNull();
    expect({ recorded: gone.recorded, kept: [...gone.kept.keys()], counted: gone.counted }).toEqual({
      recorded: [],
      kept: [],
      counted: ['deadLettered src'],
    });
    // A data set whose source still exists, or that exists itself, keeps its failed delivery.
    for (const options of [{ dataSet: false, source: true }, { dataSet: true }]) {
      const kept = world({ failure, ...options });
      expect(await recordDeadLetter(kept.deps, envelope), JSON.stringify(options)).not.toBeNull();
      expect(kept.kept.size).toBe(1);
    }
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

  it('counts a failure once when the dead-letter queue delivers it twice, and once when the first count never happened', async () => {
    const twice = world({ failure });
    await recordDeadLetter(twice.deps, envelope, new Date('2026-11-23T12:01:00.000Z'));
    expect(await recordDeadLetter(twice.deps, envelope, new Date('2026-11-23T12:02:00.000Z'))).toBeNull();
    expect(twice.counted).toEqual(['deadLettered src']);

    const crashed = world({ failure, crashOnCount: true });
    await expect(recordDeadLetter(crashed.deps, envelope, new Date('2026-11-23T12:01:00.000Z'))).rejects.toThrow();
    expect([crashed.recorded.length, crashed.counted]).toEqual([1, []]);
    // SQS delivers the message again: recorded already, counted now, under the first record's failure.
    expect(await recordDeadLetter(crashed.deps, envelope, new Date('2026-11-23T12:03:00.000Z'))).toBeNull();
    expect([crashed.recorded.length, crashed.counted]).toEqual([1, ['deadLettered src']]);
  });

  it('records an envelope the queue gave up on that nothing else holds', async () => {
    const { deps, recorded } = world({});
    expect(await recordDeadLetter(deps, envelope)).toMatchObject({
      last_error: 'No failure was recorded for this envelope',
    });
    expect(recorded).toHaveLength(1);
  });
});

describe('a dead letter that is no envelope', () => {
  const at = new Date('2026-11-23T12:01:00.000Z');
  // A field this writer does not know: the writer could not read it, and recorded why.
  const body = JSON.stringify({ ...envelope, v: 2, priority: 'high' });
  const writerFailure: DeliveryFailure = {
    message_id: envelope.message_id,
    data_set_id: envelope.data_set_id,
    error: 'Unreadable envelope: Unrecognized key: "priority"',
    store: null,
    attempt: 5,
    at: '2026-11-23T12:00:00.000Z',
  };

  it("is a failed delivery of its connection when it names its ids, its body kept as it was, the writer's reason its error", async () => {
    const { deps, recorded, kept, counted } = world({ failure: writerFailure });
    const outcome = await recordDeadLetterMessage(deps, body, 'sqs-1', at);
    expect(outcome).toEqual({ kind: 'recorded', failed: recorded[0] });
    expect(recorded).toEqual([
      {
        message_id: envelope.message_id,
        data_set_id: envelope.data_set_id,
        connection_id: 'connection',
        source_id: 'src',
        failed_at: '2026-11-23T12:01:00.000Z',
        attempts: 5,
        last_error: 'Unreadable envelope: Unrecognized key: "priority"',
        body_key: `dead-letters/${envelope.data_set_id}/${envelope.message_id}.json`,
        dt: '2026-11-23',
      },
    ]);
    expect(kept.get(`dead-letters/${envelope.data_set_id}/${envelope.message_id}.json`)).toEqual({
      unreadable_body: body,
    });
    // Delivered again: recorded and counted once.
    expect(await recordDeadLetterMessage(deps, body, 'sqs-1', at)).toEqual({ kind: 'nothing' });
    expect(counted).toEqual(['deadLettered src']);
  });

  it("names its data set's source when its own does not read, and says why when the writer recorded nothing", async () => {
    const { deps, recorded } = world({});
    const noSource = JSON.stringify({
      message_id: envelope.message_id,
      data_set_id: envelope.data_set_id,
      source_id: 7,
    });
    await recordDeadLetterMessage(deps, noSource, 'sqs-2', at);
    expect(recorded[0]).toMatchObject({
      source_id: 'src',
      last_error: 'Unreadable envelope: the message is not an envelope this writer reads',
    });
    expect(recorded[0]).not.toHaveProperty('dt');
  });

  it('is kept apart under its queue message id and counted when it names no ids, and ends there', async () => {
    for (const unreadable of ['not json', '{"message_id":"m-1","data_set_id":"../../x"}', 'null', '[]']) {
      const { deps, recorded, kept, counted } = world({});
      expect(await recordDeadLetterMessage(deps, unreadable, 'sqs-3', at)).toEqual({
        kind: 'unreadable',
        key: 'dead-letters/unreadable/sqs-3.txt',
      });
      expect([...kept]).toEqual([['dead-letters/unreadable/sqs-3.txt', unreadable]]);
      expect({ recorded, counted }).toEqual({ recorded: [], counted: ['unreadable sqs-3'] });
    }
  });

  it("carries the writer's reason in one line", () => {
    expect(() => readEnvelope(body)).toThrow(/^v: Invalid input: expected 1; envelope: Unrecognized key: "priority"$/);
    expect(() => readEnvelope('{"v":1')).toThrow(/^the message is not JSON$/);
    expect(() => readEnvelope(JSON.stringify({ ...envelope, dt: 'today', payload_size: -1 }))).toThrow(
      /^dt: Invalid string: must match pattern .*; payload_size: Too small: expected number to be >=0$/,
    );
    expect(readEnvelope(JSON.stringify(envelope))).toEqual(envelope);
  });

  it('reads an envelope whose receipt carries a figure a later door adds, without it', () => {
    const receipt = { epoch: 'k1.door', accepted: 3, duplicates: 0, all_accepted: 9 };
    const later = { ...envelope, receipt: { ...receipt, all_refused: 2 } };
    expect(readEnvelope(JSON.stringify(later))).toEqual({ ...envelope, receipt });
    // What a receipt holds is still checked.
    expect(() => readEnvelope(JSON.stringify({ ...envelope, receipt: { ...receipt, accepted: 0 } }))).toThrow(
      /^receipt\.accepted: Too small/,
    );
  });

  it('that is an envelope after all is recorded as one', async () => {
    const { deps, kept } = world({ failure });
    expect(await recordDeadLetterMessage(deps, JSON.stringify(envelope), 'sqs-4', at)).toMatchObject({
      kind: 'recorded',
      failed: { last_error: `${failure.error} (store s3://lake/datasets/x)` },
    });
    expect([...kept.values()]).toEqual([envelope]);
  });
});
