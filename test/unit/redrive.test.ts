import { describe, expect, it } from 'vitest';
import type { DomainError } from '#shared/domain/errors.ts';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import type { FailedDelivery } from '#shared/domain/ingest/kept-records.ts';
import {
  errorCategory,
  isUnreadable,
  type KeptMessage,
  keptMessage,
  type RedriveDeps,
  redrive,
} from '#shared/domain/monitoring/failed-deliveries.ts';

const record = (messageId: string, failedAt: string, lastError = 'store down'): FailedDelivery => ({
  message_id: messageId,
  data_set_id: 'ds',
  connection_id: 'c',
  source_id: 's',
  failed_at: failedAt,
  attempts: 5,
  last_error: lastError,
  // As the dead-letter recorder keeps it: one object per message.
  body_key: `dead-letters/ds/${messageId}.json`,
});

/** The records and the kept envelopes in memory; forgetting a record deletes its kept envelope, as the adapter does. */
function memory(records: FailedDelivery[]) {
  const kept = new Map<string, KeptMessage>(
    records.map((failed) => [failed.body_key, { message_id: failed.message_id } as EnvelopeMessage]),
  );
  const state = { records: [...records], requeued: [] as string[] };
  const deps: RedriveDeps = {
    allFailedDeliveries: async () => [...state.records],
    loadEnvelope: async (key) => kept.get(key) ?? null,
    requeue: async (kept) => {
      state.requeued.push(isUnreadable(kept) ? kept.unreadable_body : kept.message_id);
    },
    // As the conditional delete: one forgetting of a record, the second finds it gone.
    forget: async (failed) => {
      if (!state.records.some((other) => other.message_id === failed.message_id)) return false;
      state.records = state.records.filter((other) => other.message_id !== failed.message_id);
      kept.delete(failed.body_key);
      return true;
    },
  };
  return { deps, state, kept };
}

describe('redriving failed deliveries', () => {
  it('requeues the chosen messages before forgetting them, then the rest', async () => {
    // Prepare
    const { deps, state } = memory([record('a', '10:00:01'), record('b', '10:00:02'), record('c', '10:00:03')]);
    // Act
    const one = await redrive(deps, 'ds', { message_ids: ['b'] });
    const rest = await redrive(deps, 'ds', {});
    // Assess
    expect({ one, rest, requeued: state.requeued, left: state.records }).toEqual({
      one: { redriven: 1, by_category: { OTHER: 1 }, remaining: 0 },
      rest: { redriven: 2, by_category: { OTHER: 2 }, remaining: 0 },
      requeued: ['b', 'a', 'c'],
      left: [],
    });
  });

  it('answers 503 when the queue refuses a send, keeping every delivery it did not take, and a retry finishes', async () => {
    // Prepare: a queue that refuses its second send (b's: the three sends are in flight together).
    const { deps, state } = memory([record('a', '10:00:01'), record('b', '10:00:02'), record('c', '10:00:03')]);
    let sends = 0;
    const requeue = deps.requeue;
    const refusing: RedriveDeps = {
      ...deps,
      requeue: async (kept) => {
        if (++sends === 2) throw new Error('ServiceUnavailable');
        await requeue(kept);
      },
    };
    // Act
    const refused = await redrive(refusing, 'ds', {}).catch((error: DomainError) => ({
      code: error.code,
      message: error.message,
      headers: error.headers,
    }));
    const left = state.records.map((failed) => failed.message_id);
    const retried = await redrive(deps, 'ds', {});
    // Assess
    expect({ refused, left, retried, records: state.records }).toEqual({
      refused: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'The ingest queue did not take every failed delivery: 2 went back on it, the rest still wait; retry',
        headers: { 'retry-after': '1' },
      },
      left: ['b'],
      retried: { redriven: 1, by_category: { OTHER: 1 }, remaining: 0 },
      records: [],
    });
  });

  it('counts each delivery once when two redrives of it run at once, whichever forgets it', async () => {
    const { deps, state } = memory([record('a', '10:00:01'), record('b', '10:00:02'), record('c', '10:00:03')]);
    const [first, second] = await Promise.all([redrive(deps, 'ds', {}), redrive(deps, 'ds', {})]);
    expect(first.redriven + second.redriven).toBe(3);
    expect(state.records).toEqual([]);
    // Requeued by either or both: its message id makes it one row.
    expect(new Set(state.requeued)).toEqual(new Set(['a', 'b', 'c']));
  });

  it('puts a body kept unread back on the queue as it was, beside the envelopes', async () => {
    const { deps, state, kept } = memory([record('a', '10:00:01'), record('b', '10:00:02', 'Unreadable envelope: v')]);
    const body = '{"v":2,"message_id":"b","priority":"high"}';
    // Read back as the recorder wrote it.
    kept.set('dead-letters/ds/b.json', keptMessage(JSON.parse(JSON.stringify({ unreadable_body: body }))));
    expect(await redrive(deps, 'ds', {})).toEqual({ redriven: 2, by_category: { OTHER: 2 }, remaining: 0 });
    expect(state.requeued).toEqual(['a', body]);
    expect(state.records).toEqual([]);
  });

  it('reads back a kept envelope, or a body kept unread, and refuses anything else', () => {
    const envelope = {
      v: 1,
      message_id: '00000000-0000-4000-8000-000000000001',
      data_set_id: '00000000-0000-4000-8000-0000000000d5',
      dt: '2026-11-23',
      ingested_at_us: '1795435200000000',
      source_id: 'src',
      tenant_id: '00000000-0000-4000-8000-00000000000a',
      content_type: null,
      payload_size: 2,
      payload: 'e30=',
    };
    expect(keptMessage(envelope)).toEqual(envelope);
    expect(keptMessage({ unreadable_body: 'x' })).toEqual({ unreadable_body: 'x' });
    expect(() => keptMessage({ unreadable_body: 'x', v: 1 })).toThrow();
    expect(() => keptMessage({ message_id: 'a' })).toThrow();
  });

  it('does a bounded amount per call, oldest first, and says how many are left until none is', async () => {
    // Prepare: more failed deliveries than one call redrives.
    const records = Array.from({ length: 7 }, (_, i) => record(`m${i}`, `10:00:0${i}`));
    const { deps, state } = memory(records);
    // Act
    const calls = [];
    for (let call = 0; call < 4; call++) calls.push(await redrive(deps, 'ds', {}, 3));
    const selection = memory(records);
    const chosen = await redrive(selection.deps, 'ds', { message_ids: ['m6', 'm1', 'm4'] }, 2);
    // Assess
    expect(calls).toEqual([
      { redriven: 3, by_category: { OTHER: 3 }, remaining: 4 },
      { redriven: 3, by_category: { OTHER: 3 }, remaining: 1 },
      { redriven: 1, by_category: { OTHER: 1 }, remaining: 0 },
      { redriven: 0, by_category: {}, remaining: 0 },
    ]);
    expect([...state.requeued].sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    expect(state.requeued.slice(0, 3).sort()).toEqual(['m0', 'm1', 'm2']);
    expect({ chosen, requeued: [...selection.state.requeued].sort() }).toEqual({
      chosen: { redriven: 2, by_category: { OTHER: 2 }, remaining: 1 },
      requeued: ['m1', 'm4'],
    });
  });

  it('refuses a selection naming a message that is not a failed delivery, and redrives nothing', async () => {
    // Prepare
    const { deps, state } = memory([record('a', '10:00:01')]);
    // Act
    const refused = await redrive(deps, 'ds', { message_ids: ['a', 'zzz'] }).catch((error: Error) => error.message);
    // Assess
    expect({ refused, requeued: state.requeued, left: state.records.length }).toEqual({
      refused: 'Failed delivery zzz not found',
      requeued: [],
      left: 1,
    });
  });

  it('redrives only those of a time range of failure or a category of error, and counts them', async () => {
    // Prepare: failures of three kinds over three hours.
    const unreachable = 'STORE_UNREACHABLE: The object store could not be reached (store s3://lake/x)';
    const protocol = 'TABLE_PROTOCOL_UNSUPPORTED (the table needs reader 3 and writer 7: deletionVectors)';
    const { deps, state } = memory([
      record('a', '2026-11-21T08:10:00.000Z', unreachable),
      record('b', '2026-11-21T09:00:00.000Z', unreachable),
      record('c', '2026-11-21T09:30:00.000Z', protocol),
      record('d', '2026-11-21T10:00:00.000Z', 'Error: something else'),
      record('e', '2026-11-21T10:05:00.000Z', unreachable),
    ]);
    // Act: from inclusive, to exclusive; the fields narrow together.
    const early = await redrive(deps, 'ds', { from: '2026-11-21T09:00:00.000Z', to: '2026-11-21T10:00:00.000Z' });
    const none = await redrive(deps, 'ds', { error_category: 'ACCESS_DENIED' });
    const reachable = await redrive(deps, 'ds', {
      error_category: 'STORE_UNREACHABLE',
      to: '2026-11-21T09:00:00.000Z',
    });
    const named = await redrive(deps, 'ds', { message_ids: ['d', 'e'], error_category: 'OTHER' });
    // Assess
    expect({
      early,
      none,
      reachable,
      named,
      requeued: state.requeued,
      left: state.records.map((r) => r.message_id),
    }).toEqual({
      early: { redriven: 2, by_category: { STORE_UNREACHABLE: 1, TABLE_PROTOCOL_UNSUPPORTED: 1 }, remaining: 0 },
      none: { redriven: 0, by_category: {}, remaining: 0 },
      reachable: { redriven: 1, by_category: { STORE_UNREACHABLE: 1 }, remaining: 0 },
      named: { redriven: 1, by_category: { OTHER: 1 }, remaining: 0 },
      requeued: ['b', 'c', 'a', 'd'],
      left: ['e'],
    });
  });

  it('reads the category an error starts with, and OTHER where it names none', () => {
    expect(
      [
        'STORE_UNREACHABLE: The object store could not be reached',
        'ACCESS_DENIED: refused (S3 error code AccessDenied) (store s3://b/p)',
        'TABLE_PROTOCOL_UNSUPPORTED (reader 3)',
        'NO_SUCH_BUCKET',
        'Error: boom',
        'TypeError: x is undefined',
        'Unreadable envelope: bad JSON',
        'The claim-checked payload no longer exists',
        'STORE_UNREACHABLEx',
      ].map(errorCategory),
    ).toEqual([
      'STORE_UNREACHABLE',
      'ACCESS_DENIED',
      'TABLE_PROTOCOL_UNSUPPORTED',
      'NO_SUCH_BUCKET',
      'OTHER',
      'OTHER',
      'OTHER',
      'OTHER',
      'OTHER',
    ]);
  });

  it('refuses an empty time range, and redrives nothing', async () => {
    const { deps, state } = memory([record('a', '2026-11-21T10:00:00.000Z')]);
    const refused = await redrive(deps, 'ds', {
      from: '2026-11-21T11:00:00.000Z',
      to: '2026-11-21T10:00:00.000Z',
    }).catch((error: { code: string }) => error.code);
    expect({ refused, requeued: state.requeued }).toEqual({ refused: 'VALIDATION_ERROR', requeued: [] });
  });
});
