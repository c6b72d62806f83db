import { describe, expect, it } from 'vitest';
import { epochStartMs, Tally, TallyWriter, type TotalWrite } from '#shared/domain/observability/tally.ts';

/** A tally on a clock the test moves, with epoch names it can predict. */
function tallyAt(start = Date.parse('2026-01-01T00:00:00.000Z')) {
  const clock = { now: start };
  let process = 0;
  const tally = new Tally({
    now: () => clock.now,
    epochMs: 15 * 60_000,
    maxAgeMs: 60_000,
    maxPending: 5,
    random: () => `p${++process}`,
  });
  return { tally, clock };
}

const accepted = { source_id: 's1', status: '202', code: 'ACCEPTED' };

describe('a tally of counts', () => {
  it('writes urgent counts at once and deferred ones after a minute or five changes', () => {
    const { tally, clock } = tallyAt();
    tally.add('ingestRequests', accepted, 1, { deferred: true });
    expect(tally.due()).toBe(false);
    clock.now += 59_999;
    expect(tally.due()).toBe(false);
    clock.now += 1;
    expect(tally.due()).toBe(true);
    tally.drain();

    for (let i = 0; i < 4; i++) tally.add('ingestRequests', accepted, 1, { deferred: true });
    expect(tally.due()).toBe(false);
    tally.add('ingestRequests', accepted, 1, { deferred: true });
    expect(tally.due()).toBe(true);
    tally.drain();

    tally.add('batchesCommitted', {}, 1);
    expect(tally.due()).toBe(true);
    expect(tally.due({ urgentOnly: true })).toBe(true);
  });

  it('is due by the oldest pending change among many series, and urgentOnly ignores deferred ones', () => {
    const clock = { now: Date.parse('2026-01-01T00:00:00.000Z') };
    const tally = new Tally({ now: () => clock.now, maxAgeMs: 60_000, maxPending: 1_000_000 });
    tally.add('ingestRequests', { source_id: 'first' }, 1, { deferred: true });
    for (let i = 0; i < 2000; i++) {
      clock.now += 10;
      tally.add('ingestRequests', { source_id: `s${i}` }, 1, { deferred: true });
    }
    // The first change is 20 s old: nothing due yet.
    expect(tally.due()).toBe(false);
    clock.now += 40_000;
    expect(tally.due()).toBe(true);
    expect(tally.due({ urgentOnly: true })).toBe(false);
    expect(tally.drain()).toHaveLength(2001);
    expect(tally.due()).toBe(false);
    // A write that failed is due again at once, even a deferred series'.
    tally.add('ingestRequests', { source_id: 'again' }, 1, { deferred: true });
    const [write] = tally.drain();
    tally.failed(write as NonNullable<typeof write>);
    expect(tally.due({ urgentOnly: true })).toBe(true);
  });

  it('writes running totals of its epoch, each change once', () => {
    const { tally } = tallyAt();
    expect(tally.add('ingestRequests', accepted, 1, { deferred: true })).toEqual({
      epoch: 't85s00.p1',
      total: 1,
      alsoTotal: null,
    });
    expect(tally.add('ingestRequests', accepted, 1, { deferred: true })).toEqual({
      epoch: 't85s00.p1',
      total: 2,
      alsoTotal: null,
    });
    tally.add('envelopesWritten', { source_id: 's1' }, 7);
    expect(tally.drain()).toEqual([
      {
        metric: 'ingestRequests',
        labels: accepted,
        epoch: 't85s00.p1',
        value: 2,
        lastAt: '2026-01-01T00:00:00.000Z',
      },
      {
        metric: 'envelopesWritten',
        labels: { source_id: 's1' },
        epoch: 't85s00.p1',
        value: 7,
        lastAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expect(tally.drain()).toEqual([]);
    tally.add('envelopesWritten', { source_id: 's1' }, 3);
    expect(tally.drain()).toMatchObject([{ value: 10 }]);
  });

  it('starts a new epoch every 15 minutes, whose totals start from zero', () => {
    const { tally, clock } = tallyAt();
    tally.add('ingestRequests', accepted, 4, { deferred: true });
    clock.now += 15 * 60_000;
    expect(tally.add('ingestRequests', accepted, 1, { deferred: true })).toEqual({
      epoch: 't85sp0.p2',
      total: 1,
      alsoTotal: null,
    });
    expect(epochStartMs('t85sp0.p2')).toBe(Date.parse('2026-01-01T00:15:00.000Z'));
    expect(tally.drain().map((write) => [write.epoch, write.value])).toEqual([
      ['t85s00.p1', 4],
      ['t85sp0.p2', 1],
    ]);
  });

  it('starts its epochs on the clock’s quarter hours, whenever the process started', () => {
    const { tally, clock } = tallyAt(Date.parse('2026-01-01T00:07:30.000Z'));
    const first = tally.add('ingestRequests', accepted, 1).epoch;
    clock.now = Date.parse('2026-01-01T00:14:59.999Z');
    expect(tally.add('ingestRequests', accepted, 1).epoch).toBe(first);
    clock.now = Date.parse('2026-01-01T00:15:00.000Z');
    const second = tally.add('ingestRequests', accepted, 1).epoch;
    expect([epochStartMs(first), epochStartMs(second)].map((ms) => new Date(ms).toISOString())).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:15:00.000Z',
    ]);
  });

  it('writes a failed total again, and never a value twice once written', () => {
    const { tally } = tallyAt();
    tally.add('deadLettered', { source_id: 's1' }, 2);
    const [write] = tally.drain();
    expect(tally.due()).toBe(false);
    tally.failed(write as NonNullable<typeof write>);
    expect(tally.due()).toBe(true);
    expect(tally.drain()).toMatchObject([{ value: 2 }]);
  });

  it('writes a refusal at once, but a flood of them once a second per series', () => {
    const { tally, clock } = tallyAt();
    const refused = { source_id: 's1', status: '429', code: 'RATE_LIMITED' };
    tally.add('ingestRequests', refused, 1, { coalesced: true });
    expect(tally.due()).toBe(true);
    expect(tally.drain()).toMatchObject([{ value: 1 }]);
    // 500 more within the second: none due until a second after the write.
    for (let i = 0; i < 500; i++) {
      clock.now += 1;
      tally.add('ingestRequests', refused, 1, { coalesced: true });
    }
    expect(tally.due()).toBe(false);
    clock.now += 499;
    expect(tally.due()).toBe(false);
    clock.now += 1;
    expect(tally.due()).toBe(true);
    expect(tally.drain()).toMatchObject([{ value: 501 }]);
    // Another series, never written: at once.
    tally.add('ingestRequests', { ...refused, source_id: 's2' }, 1, { coalesced: true });
    expect(tally.due({ urgentOnly: true })).toBe(true);
  });

  it('raises a series to a receipt, never lowers it, and makes a pending one due', () => {
    const { tally } = tallyAt();
    // Another process's epoch: the writer saw its fifth and then its third envelope.
    tally.raise('ingestRequests', accepted, 'oyr000.other', 5, '2026-01-01T00:00:00.000Z');
    tally.raise('ingestRequests', accepted, 'oyr000.other', 3, '2026-01-01T00:00:01.000Z');
    expect(tally.drain()).toMatchObject([{ epoch: 'oyr000.other', value: 5 }]);

    // This process's own deferred count, seen by the writer in the same process: due at once.
    const { epoch } = tally.add('ingestRequests', accepted, 1, { deferred: true });
    expect(tally.due()).toBe(false);
    tally.raise('ingestRequests', accepted, epoch, 1, '2026-01-01T00:00:00.000Z');
    expect(tally.due()).toBe(true);
    expect(tally.drain()).toMatchObject([{ epoch, value: 1 }]);
  });

  it('counts a source’s series in that of all sources too, in the same epoch, and raises both from a receipt', () => {
    const clock = { now: Date.parse('2026-01-01T00:14:59.999Z') };
    const tally = new Tally({
      now: () => clock.now,
      random: () => 'door',
      alsoCounts: (_metric, { source_id: _source, ...rest }) => (_source ? rest : null),
    });
    const all = { status: '202', code: 'ACCEPTED' };
    expect(tally.add('ingestRequests', { ...accepted, source_id: 's1' }, 1, { deferred: true })).toEqual({
      epoch: 't85s00.door',
      total: 1,
      alsoTotal: 1,
    });
    expect(tally.add('ingestRequests', { ...accepted, source_id: 's2' }, 2, { deferred: true })).toEqual({
      epoch: 't85s00.door',
      total: 2,
      alsoTotal: 3,
    });
    // A series of no source goes nowhere else.
    expect(tally.add('batchesCommitted', {}, 1).alsoTotal).toBeNull();
    expect(tally.drain().map(({ labels, value, epoch }) => ({ labels, value, epoch }))).toEqual([
      { labels: { ...accepted, source_id: 's1' }, value: 1, epoch: 't85s00.door' },
      { labels: all, value: 3, epoch: 't85s00.door' },
      { labels: { ...accepted, source_id: 's2' }, value: 2, epoch: 't85s00.door' },
      { labels: {}, value: 1, epoch: 't85s00.door' },
    ]);

    // Another process's receipt: the source's series to its total, that of all sources to its own.
    tally.raise('ingestRequests', accepted, 't85s00.gone', 4, '2026-01-01T00:00:00.000Z', 9);
    // An envelope queued before receipts carried the total of all sources raises its source's alone.
    tally.raise('ingestRequests', { ...accepted, source_id: 's3' }, 't85s00.old', 2, '2026-01-01T00:00:00.000Z');
    expect(tally.due({ urgentOnly: true })).toBe(true);
    expect(tally.drain().map(({ labels, value, epoch }) => ({ labels, value, epoch }))).toEqual([
      { labels: accepted, value: 4, epoch: 't85s00.gone' },
      { labels: all, value: 9, epoch: 't85s00.gone' },
      { labels: { ...accepted, source_id: 's3' }, value: 2, epoch: 't85s00.old' },
    ]);
  });
});

describe('writing a tally that many invocations share', () => {
  /** A writer whose writes are held until the test lets each one finish. */
  function heldWriter(tally: Tally) {
    const writes: { totals: TotalWrite[]; partial: boolean; finish: () => void }[] = [];
    const writer = new TallyWriter(
      tally,
      (totals, { partial }) =>
        new Promise<void>((finish) => {
          writes.push({ totals, partial, finish });
        }),
    );
    return { writer, writes };
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('makes one write for fifty invocations that find the counts due at once, and none after it', async () => {
    const { tally } = tallyAt();
    const { writer, writes } = heldWriter(tally);
    // Fifty requests answered at once, each counted, each then finding the counts due (five or more).
    const flushes: Promise<void>[] = [];
    for (let i = 0; i < 50; i++) {
      tally.add('ingestRequests', accepted, 1, { deferred: true });
      if (tally.due()) flushes.push(writer.flush());
    }
    expect(flushes).toHaveLength(46);
    await settle();
    expect(writes).toHaveLength(1);
    expect(writes[0]?.totals.map((write) => write.value)).toEqual([50]);

    // Counts made while it is under way are fewer than five and not old: not due, so nothing follows it.
    for (let i = 0; i < 3; i++) tally.add('ingestRequests', accepted, 1, { deferred: true });
    const later = [writer.flush(), writer.flush(), writer.flush()];
    writes[0]?.finish();
    await settle();
    expect(writes).toHaveLength(1);
    await Promise.all([...flushes, ...later]);
  });

  it('gives counts that fall due during a write one more write, shared by everyone who asked', async () => {
    const { tally } = tallyAt();
    const { writer, writes } = heldWriter(tally);
    tally.add('batchesCommitted', {}, 1);
    const first = writer.flush();
    await settle();
    expect(writes).toHaveLength(1);

    // An urgent count during the write: due, and waits for a write after the one under way.
    tally.add('batchesCommitted', {}, 2);
    const waiting = Array.from({ length: 10 }, () => writer.flush());
    await settle();
    expect(writes).toHaveLength(1);
    writes[0]?.finish();
    await first;
    await settle();
    expect(writes).toHaveLength(2);
    expect(writes[1]?.totals.map((write) => write.value)).toEqual([3]);
    writes[1]?.finish();
    await Promise.all(waiting);
    expect(writes).toHaveLength(2);
  });

  it("writes a source's urgent series at once when asked, and leaves the rest as they were", async () => {
    const { tally } = tallyAt();
    const { writer, writes } = heldWriter(tally);
    tally.add('envelopesWritten', { source_id: 's1' }, 3);
    tally.add('batchesCommitted', {}, 1);
    // The door's count, deferred: not due, and not a committer's to write early.
    tally.add('ingestRequests', accepted, 1, { deferred: true });
    const picked = writer.flushOnly((series) => series.urgent && Boolean(series.labels.source_id));
    await settle();
    expect(writes).toHaveLength(1);
    expect(writes[0]?.totals.map((write) => [write.metric, write.value])).toEqual([['envelopesWritten', 3]]);
    writes[0]?.finish();
    await picked;
    // The platform's urgent count is still due; the next flush writes it, and what else is pending.
    expect(tally.due()).toBe(true);
    const rest = writer.flush();
    await settle();
    expect(
      writes[1]?.totals
        .map((write) => [write.metric, write.value])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ['batchesCommitted', 1],
      ['ingestRequests', 1],
    ]);
    writes[1]?.finish();
    await rest;
    expect(tally.due()).toBe(false);
    expect(writes.map((write) => write.partial)).toEqual([true, false]);
  });

  it("shares one write among the sources' flushes asked for while another write is under way", async () => {
    const { tally } = tallyAt();
    const { writer, writes } = heldWriter(tally);
    const bySource = (series: { labels: Record<string, string> }) => Boolean(series.labels.source_id);
    tally.add('batchesCommitted', {}, 1);
    const whole = writer.flush();
    await settle();
    // Three tables committed while the write above is under way, each asking for its source's counts.
    const asked: Promise<void>[] = [];
    for (const source of ['s1', 's2', 's3']) {
      tally.add('envelopesWritten', { source_id: source }, 2);
      asked.push(writer.flushOnly(bySource));
    }
    writes[0]?.finish();
    await whole;
    await settle();
    expect(writes).toHaveLength(2);
    expect(writes[1]?.totals.map((write) => write.labels.source_id).sort()).toEqual(['s1', 's2', 's3']);
    writes[1]?.finish();
    await Promise.all(asked);
    expect(writes).toHaveLength(2);
  });

  it('writes nothing when nothing is due', async () => {
    const { tally } = tallyAt();
    const { writer, writes } = heldWriter(tally);
    tally.add('ingestRequests', accepted, 1, { deferred: true });
    const flushed = writer.flush();
    await settle();
    expect(writes).toHaveLength(0);
    await flushed;
  });
});

describe('a tally write that fails', () => {
  it('hands every total back to be written again, says why, and never fails whoever waited for it', async () => {
    const { tally } = tallyAt();
    const errors: string[] = [];
    let attempts = 0;
    const written: number[] = [];
    const writer = new TallyWriter(
      tally,
      async (totals) => {
        attempts++;
        if (attempts === 1) throw new Error('table unavailable');
        written.push(...totals.map((write) => write.value));
      },
      (error) => errors.push(error.message),
    );
    tally.add('batchesCommitted', {}, 4);
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(errors).toEqual(['table unavailable']);
    expect(tally.due()).toBe(true);
    await writer.flush();
    expect(written).toEqual([4]);
    expect(tally.due()).toBe(false);
  });
});
