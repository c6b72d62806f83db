import { describe, expect, it } from 'vitest';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import type { DeliveryFailure } from '#shared/domain/ingest/kept-records.ts';
import {
  countFailedAttempt,
  deadLetterStaged,
  type StagedFailureDeps,
} from '#shared/domain/ingest/staged-dead-letters.ts';
import { StoreFailure } from '#shared/domain/tenants/store-failures.ts';

const TABLE = '0b6c1f1e-6c1f-4f5e-9d3a-1f2e3d4c5b6a';

const envelope = (messageId: string): EnvelopeMessage => ({
  v: 1,
  message_id: messageId,
  data_set_id: TABLE,
  dt: '2026-12-05',
  ingested_at_us: '1796000000000000',
  source_id: 'src',
  tenant_id: '7d4f8c2a-1b3e-4a5f-8c6d-9e0f1a2b3c4d',
  content_type: 'application/json',
  payload_size: 2,
  payload: '{}',
});

/** In-memory ports: what was kept, sent, logged and counted, in order. */
function ports(dataSet: () => Promise<DataSet | null>) {
  const done: string[] = [];
  const kept: DeliveryFailure[] = [];
  const sent: string[] = [];
  const logged: { message: string; fields: Record<string, unknown> }[] = [];
  const counted: { figure: string; labels: Record<string, string>; by: number }[] = [];
  const deps: StagedFailureDeps = {
    getDataSet: dataSet,
    async recordDeliveryFailures(failures) {
      done.push('kept');
      kept.push(...failures);
    },
    async sendToDeadLetterQueue(messages) {
      done.push('sent');
      sent.push(...messages.map((message) => message.message_id));
    },
    describe: (error) => `${error.name}: ${error.message}`,
    count: (figure, labels, by) => counted.push({ figure, labels, by }),
    error: (message, fields) => logged.push({ message, fields }),
    now: () => Date.parse('2026-12-05T10:00:00.000Z'),
  };
  return { deps, done, kept, sent, logged, counted };
}

describe("a staged table's envelopes dead-lettered", () => {
  it('keep why each failed, with its store and attempts, before they go to the dead-letter queue', async () => {
    const world = ports(async () => ({ storage_location: 's3://lake/datasets/x' }) as DataSet);
    const ids = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222'];
    await deadLetterStaged(world.deps, TABLE, ids.map(envelope), new Error('x'.repeat(1200)), 5);
    expect(world.done).toEqual(['kept', 'sent']);
    expect(world.sent).toEqual(ids);
    expect(world.kept).toEqual(
      ids.map((id) => ({
        message_id: id,
        data_set_id: TABLE,
        error: `Error: ${'x'.repeat(993)}`,
        store: 's3://lake/datasets/x',
        attempt: 5,
        at: '2026-12-05T10:00:00.000Z',
      })),
    );
    expect(world.logged).toEqual([
      {
        message: 'Staged envelopes moved to the dead-letter queue',
        fields: { data_set_id: TABLE, envelopes: 2, attempts: 5, error: `Error: ${'x'.repeat(1200)}` },
      },
    ]);
  });

  it('keep no store for a data set that is gone or cannot be read, and are dead-lettered all the same', async () => {
    for (const dataSet of [async () => null, async () => Promise.reject(new Error('throttled'))]) {
      const world = ports(dataSet);
      await deadLetterStaged(
        world.deps,
        TABLE,
        [envelope('33333333-3333-4333-8333-333333333333')],
        new Error('gone'),
        1,
      );
      expect(world.kept.map((failure) => failure.store)).toEqual([null]);
      expect(world.sent).toEqual(['33333333-3333-4333-8333-333333333333']);
    }
  });

  it('stay on the queue when their failures cannot be kept: nothing is sent', async () => {
    const world = ports(async () => null);
    world.deps.recordDeliveryFailures = async () => Promise.reject(new Error('table unavailable'));
    const moving = deadLetterStaged(
      world.deps,
      TABLE,
      [envelope('44444444-4444-4444-8444-444444444444')],
      new Error('e'),
      5,
    );
    await expect(moving).rejects.toThrow('table unavailable');
    expect(world.sent).toEqual([]);
  });
});

describe('a failed attempt of a staged commit', () => {
  it("is logged, and its envelopes counted by the failure's reason", () => {
    const world = ports(async () => null);
    const error = new StoreFailure('ACCESS_DENIED');
    countFailedAttempt(world.deps, TABLE, 7, error, 2);
    expect(world.counted).toEqual([{ figure: 'batchFailures', labels: { reason: 'ACCESS_DENIED' }, by: 7 }]);
    expect(world.logged).toEqual([
      { message: 'Staged commit failed', fields: { data_set_id: TABLE, envelopes: 7, attempt: 2, error } },
    ]);
    countFailedAttempt(world.deps, TABLE, 1, Object.assign(new Error('slow'), { name: 'TimeoutError' }), 1);
    expect(world.counted[1]).toEqual({ figure: 'batchFailures', labels: { reason: 'TimeoutError' }, by: 1 });
  });
});
