import { describe, expect, it } from 'vitest';
import type { EnvelopeMessage } from '#shared/domain/ingest/envelope.ts';
import { type RedriveDeps, redrive } from '#shared/domain/monitoring/failed-deliveries.ts';
import type { FailedDelivery } from '#shared/domain/monitoring/model.ts';

const record = (messageId: string, failedAt: string): FailedDelivery => ({
  message_id: messageId,
  data_set_id: 'ds',
  connection_id: 'c',
  source_id: 's',
  failed_at: failedAt,
  attempts: 5,
  last_error: 'store down',
  // As the dead-letter recorder keeps it: one object per message.
  body_key: `dead-letters/ds/${messageId}.json`,
});

/** The records and the kept envelopes in memory; forgetting a record deletes its kept envelope, as the adapter does. */
function memory(records: FailedDelivery[]) {
  const kept = new Map(records.map((failed) => [failed.body_key, { message_id: failed.message_id }]));
  const state = { records: [...records], requeued: [] as string[] };
  const deps: RedriveDeps = {
    allFailedDeliveries: async () => [...state.records],
    loadEnvelope: async (key) => {
      const envelope = kept.get(key);
      if (!envelope) throw new Error(`NoSuchKey ${key}`);
      return envelope as EnvelopeMessage;
    },
    requeue: async (envelope) => {
      state.requeued.push(envelope.message_id);
    },
    forget: async (failed) => {
      state.records = state.records.filter((other) => other !== failed);
      kept.delete(failed.body_key);
    },
  };
  return { deps, state };
}

describe('redriving failed deliveries', () => {
  it('requeues the chosen messages before forgetting them, then the rest', async () => {
    // Prepare
    const { deps, state } = memory([record('a', '10:00:01'), record('b', '10:00:02'), record('c', '10:00:03')]);
    // Act
    const one = await redrive(deps, 'ds', ['b']);
    const rest = await redrive(deps, 'ds', undefined);
    // Assess
    expect({ one, rest, requeued: state.requeued, left: state.records }).toEqual({
      one: { redriven: 1, remaining: 0 },
      rest: { redriven: 2, remaining: 0 },
      requeued: ['b', 'a', 'c'],
      left: [],
    });
  });

  it('does a bounded amount per call, oldest first, and says how many are left until none is', async () => {
    // Prepare: more failed deliveries than one call redrives.
    const records = Array.from({ length: 7 }, (_, i) => record(`m${i}`, `10:00:0${i}`));
    const { deps, state } = memory(records);
    // Act
    const calls = [];
    for (let call = 0; call < 4; call++) calls.push(await redrive(deps, 'ds', undefined, 3));
    const selection = memory(records);
    const chosen = await redrive(selection.deps, 'ds', ['m6', 'm1', 'm4'], 2);
    // Assess
    expect(calls).toEqual([
      { redriven: 3, remaining: 4 },
      { redriven: 3, remaining: 1 },
      { redriven: 1, remaining: 0 },
      { redriven: 0, remaining: 0 },
    ]);
    expect([...state.requeued].sort()).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    expect(state.requeued.slice(0, 3).sort()).toEqual(['m0', 'm1', 'm2']);
    expect({ chosen, requeued: [...selection.state.requeued].sort() }).toEqual({
      chosen: { redriven: 2, remaining: 1 },
      requeued: ['m1', 'm4'],
    });
  });

  it('refuses a selection naming a message that is not a failed delivery, and redrives nothing', async () => {
    // Prepare
    const { deps, state } = memory([record('a', '10:00:01')]);
    // Act
    const refused = await redrive(deps, 'ds', ['a', 'zzz']).catch((error: Error) => error.message);
    // Assess
    expect({ refused, requeued: state.requeued, left: state.records.length }).toEqual({
      refused: 'Failed delivery zzz not found',
      requeued: [],
      left: 1,
    });
  });
});
