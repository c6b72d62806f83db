import { describe, expect, it } from 'vitest';
import { utcDate } from '#shared/domain/ingest/envelope.ts';

/** Microseconds since the epoch of an ISO time, with extra microseconds. */
const micros = (iso: string, extra = 0) => BigInt(Date.parse(iso)) * 1000n + BigInt(extra);

describe("an envelope's date (dt)", () => {
  it('is the UTC day of its time, on either side of midnight and across days, months and years', () => {
    const times = [
      micros('2026-11-23T12:00:00.000Z'),
      micros('2026-11-23T23:59:59.999Z', 999),
      micros('2026-11-24T00:00:00.000Z'),
      micros('2026-11-23T00:00:00.000Z'),
      micros('2026-11-22T23:59:59.999Z', 999),
      micros('2026-11-24T00:00:00.000Z', 1),
      micros('2026-12-31T23:59:59.999Z', 999),
      micros('2027-01-01T00:00:00.000Z'),
      micros('2024-02-29T08:30:00.000Z'),
      micros('1970-01-01T00:00:00.000Z'),
      micros('1969-12-31T23:59:59.999Z'),
      micros('2026-11-23T06:00:00.000Z'),
    ];
    expect(times.map(utcDate)).toEqual([
      '2026-11-23',
      '2026-11-23',
      '2026-11-24',
      '2026-11-23',
      '2026-11-22',
      '2026-11-24',
      '2026-12-31',
      '2027-01-01',
      '2024-02-29',
      '1970-01-01',
      '1969-12-31',
      '2026-11-23',
    ]);
  });
});
