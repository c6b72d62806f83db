import { describe, expect, it } from 'vitest';
import { statsFrom } from '#shared/domain/monitoring/views.ts';
import {
  type MetricKey,
  missingEnvelopes,
  renderPrometheus,
  type Sample,
  unaccountedBySource,
  unaccountedOfAllSources,
  unaccountedTotal,
} from '#shared/domain/observability/metric-catalogue.ts';

const samplesOf = (lines: string) => lines.split('\n').filter((line) => line && !line.startsWith('#'));
/** GET /metrics?shards=: each source's series, and the sum of each source's figure unaccounted for. */
const bySource = (samples: Map<MetricKey, Sample[]>) =>
  renderPrometheus(samples, unaccountedTotal(unaccountedBySource(samples)));

describe('/metrics', () => {
  it('reads 0 for every label-less counter before anything was counted', () => {
    expect(samplesOf(renderPrometheus(new Map(), 0))).toEqual([
      'tributary_batches_committed_total 0',
      'tributary_batch_failures_total 0',
      'tributary_dead_lettered_total 0',
      'tributary_unreadable_dead_letters_total 0',
      'tributary_redriven_total 0',
      'tributary_dead_letters_deleted_total 0',
      'tributary_jobs_offered_again_total 0',
      'tributary_envelopes_unaccounted 0',
    ]);
  });

  it('sums per-source and per-reason series into the label-less ones, and shows what is unaccounted', () => {
    const samples = new Map<MetricKey, Sample[]>([
      [
        'ingestRequests',
        [
          { labels: { source_id: 'a', status: '202', code: 'ACCEPTED' }, value: 10 },
          { labels: { source_id: 'b', status: '202', code: 'ACCEPTED' }, value: 5 },
          { labels: { source_id: 'a', status: '401', code: 'UNAUTHORIZED' }, value: 3 },
        ],
      ],
      ['ingestDuplicates', [{ labels: { source_id: 'a' }, value: 2 }]],
      [
        'envelopesWritten',
        [
          { labels: { source_id: 'a' }, value: 7 },
          { labels: { source_id: 'b' }, value: 4 },
          // A pipeline's output: not an ingest envelope.
          { labels: { source_id: '' }, value: 100 },
        ],
      ],
      [
        'deadLettered',
        [
          { labels: { source_id: 'a' }, value: 1 },
          { labels: { source_id: 'b' }, value: 1 },
        ],
      ],
      ['redriven', [{ labels: { source_id: 'b' }, value: 1 }]],
      ['batchFailures', [{ labels: { reason: 'NoSuchBucket' }, value: 4 }]],
    ]);
    const lines = samplesOf(bySource(samples));
    expect(lines).toContain('tributary_dead_lettered_total 2');
    expect(lines).toContain('tributary_batch_failures_total 4');
    expect(lines).toContain('tributary_redriven_total 1');
    // 15 accepted − 2 duplicates − 11 written − (2 dead-lettered − 1 redriven)
    expect(lines).toContain('tributary_envelopes_unaccounted 1');
  });

  it('accounts source by source: a source whose accepted count reads low hides no other source’s loss', () => {
    const samples = new Map<MetricKey, Sample[]>([
      [
        'ingestRequests',
        [
          { labels: { source_id: 'lossy', status: '202', code: 'ACCEPTED' }, value: 3 },
          { labels: { source_id: 'low', status: '202', code: 'ACCEPTED' }, value: 2 },
        ],
      ],
      ['envelopesWritten', [{ labels: { source_id: 'low' }, value: 9 }]],
    ]);
    // lossy: 3 accepted, none written → 3; low: 2 − 9 = −7 → 0, not −4 in all.
    expect(samplesOf(bySource(samples))).toContain('tributary_envelopes_unaccounted 3');
  });
});

describe('/metrics of all sources', () => {
  it('reads envelopes unaccounted for from the series of all sources alone, never below 0', () => {
    const samples = new Map<MetricKey, Sample[]>([
      [
        'ingestRequests',
        [
          { labels: { status: '202', code: 'ACCEPTED' }, value: 15 },
          { labels: { status: '401', code: 'UNAUTHORIZED' }, value: 3 },
          // A source's own series: counted in those of all sources already.
          { labels: { source_id: 'a', status: '202', code: 'ACCEPTED' }, value: 10 },
        ],
      ],
      ['ingestDuplicates', [{ labels: {}, value: 2 }]],
      [
        'envelopesWritten',
        [
          { labels: {}, value: 9 },
          { labels: { source_id: 'a' }, value: 7 },
        ],
      ],
      ['envelopesExpired', [{ labels: {}, value: 1 }]],
      ['envelopesLost', [{ labels: {}, value: 1 }]],
      ['deadLettered', [{ labels: {}, value: 2 }]],
      ['redriven', [{ labels: {}, value: 1 }]],
      // Not an accounting figure.
      ['batchFailures', [{ labels: { reason: 'NoSuchBucket' }, value: 4 }]],
    ]);
    // 15 accepted − 2 duplicates − 9 written − 1 expired − 1 lost − (2 dead-lettered − 1 redriven)
    expect(unaccountedOfAllSources(samples)).toBe(1);
    const lines = samplesOf(renderPrometheus(samples, unaccountedOfAllSources(samples)));
    expect(lines).toContain('tributary_ingest_requests_total{code="ACCEPTED",status="202"} 15');
    expect(lines).toContain('tributary_envelopes_unaccounted 1');
    // Written ahead of the door's counts (its instance has not written them yet): 0, not −3.
    samples.set('envelopesWritten', [{ labels: {}, value: 14 }]);
    expect(unaccountedOfAllSources(samples)).toBe(0);
  });
});

describe('envelopes lost', () => {
  it('are shown by source, and taken out of the unaccounted figure: they have a figure of their own', () => {
    const samples = new Map<MetricKey, Sample[]>([
      ['ingestRequests', [{ labels: { source_id: 'a', status: '202', code: 'ACCEPTED' }, value: 10 }]],
      ['envelopesWritten', [{ labels: { source_id: 'a' }, value: 6 }]],
      ['envelopesLost', [{ labels: { source_id: 'a' }, value: 3 }]],
    ]);
    const lines = samplesOf(bySource(samples));
    expect(lines).toContain('tributary_envelopes_lost_total{source_id="a"} 3');
    // 10 accepted − 6 written − 3 lost
    expect(lines).toContain('tributary_envelopes_unaccounted 1');
  });
});

describe('envelopes missing', () => {
  const lossyA = new Map<MetricKey, Sample[]>([
    ['ingestRequests', [{ labels: { source_id: 'A', status: '202', code: 'ACCEPTED' }, value: 100 }]],
    ['envelopesWritten', [{ labels: { source_id: 'A' }, value: 90 }]],
  ]);

  it("sets staged rows against their own source: another source's staged pool hides no loss", () => {
    // A lost 10; B has 500 staged whose accepted counts have not landed (B's figure reads 0).
    const waiting = { stagedBySource: new Map([['B', 500]]), elsewhere: 0 };
    expect(missingEnvelopes(unaccountedBySource(lossyA), waiting)).toBe(10);
  });

  it("counts a source's own staged rows as waiting, and what waits on the queues against the sum", () => {
    const bySource = new Map([
      ['A', 10],
      ['C', 30],
    ]);
    // A: 10 − 4 staged = 6; C: 30 − 50 staged → 0; 6 − 5 on the queues = 1.
    expect(
      missingEnvelopes(bySource, {
        stagedBySource: new Map([
          ['A', 4],
          ['C', 50],
        ]),
        elsewhere: 5,
      }),
    ).toBe(1);
    expect(missingEnvelopes(bySource, { stagedBySource: new Map(), elsewhere: 45 })).toBe(0);
  });
});

describe('connection stats', () => {
  it('account for every accepted envelope: written, left out past the data retention, lost, failed, or unaccounted', () => {
    const stats = statsFrom(
      [
        {
          metric: 'ingestRequests',
          labels: { source_id: 'a', status: '202', code: 'ACCEPTED' },
          value: 13,
          lastAt: '2026-01-01T00:00:02.000Z',
        },
        {
          metric: 'ingestRequests',
          labels: { source_id: 'a', status: '413', code: 'PAYLOAD_TOO_LARGE' },
          value: 2,
          lastAt: null,
        },
        { metric: 'ingestDuplicates', labels: { source_id: 'a' }, value: 1, lastAt: null },
        { metric: 'envelopesWritten', labels: { source_id: 'a' }, value: 8, lastAt: '2026-01-01T00:00:03.000Z' },
        { metric: 'envelopesExpired', labels: { source_id: 'a' }, value: 1, lastAt: null },
        { metric: 'envelopesLost', labels: { source_id: 'a' }, value: 1, lastAt: null },
        { metric: 'deadLettered', labels: { source_id: 'a' }, value: 2, lastAt: null },
        { metric: 'redriven', labels: { source_id: 'a' }, value: 1, lastAt: null },
        { metric: 'deadLettersDeleted', labels: { source_id: 'a' }, value: 1, lastAt: null },
      ],
      {
        rows: 1,
        oldest: Date.parse('2026-01-01T00:00:00.000Z'),
        failure: { attempts: 2, lastError: 'STORE_UNREACHABLE: The object store could not be reached' },
      },
      new Date('2026-01-01T00:01:30.000Z'),
    );
    expect(stats).toEqual({
      accepted: 13,
      duplicates: 1,
      rejected: { PAYLOAD_TOO_LARGE: 2 },
      written_rows: 8,
      expired_rows: 1,
      lost_rows: 1,
      dead_lettered: 2,
      redriven: 1,
      // Deleted past the data retention: still dead-lettered, never a loss.
      deleted_dead_letters: 1,
      // 13 accepted − 1 duplicate − 8 written − 1 expired − 1 lost − (2 dead-lettered − 1 redriven): the one staged
      unaccounted: 1,
      last_ingest_at: '2026-01-01T00:00:02.000Z',
      last_write_at: '2026-01-01T00:00:03.000Z',
      staged_rows: 1,
      oldest_unwritten_age_seconds: 90,
      commit_failure: { attempts: 2, last_error: 'STORE_UNREACHABLE: The object store could not be reached' },
    });
  });

  it('show a webhook accepted once its envelope is staged, before the door has written its count', () => {
    const staged = { rows: 1, oldest: Date.parse('2026-01-01T00:00:00.000Z'), failure: null };
    const stats = statsFrom([], staged, new Date('2026-01-01T00:00:05.000Z'));
    expect(stats).toMatchObject({
      accepted: 1,
      staged_rows: 1,
      unaccounted: 1,
      last_ingest_at: '2026-01-01T00:00:00.000Z',
    });
    // Committed: the writer's count and the receipt it raised agree with it.
    const committed = statsFrom(
      [
        {
          metric: 'ingestRequests',
          labels: { source_id: 'a', status: '202', code: 'ACCEPTED' },
          value: 1,
          lastAt: null,
        },
        { metric: 'envelopesWritten', labels: { source_id: 'a' }, value: 1, lastAt: '2026-01-01T00:00:09.000Z' },
      ],
      { rows: 0, oldest: Number.POSITIVE_INFINITY, failure: null },
    );
    expect(committed).toMatchObject({ accepted: 1, written_rows: 1, unaccounted: 0 });
  });

  it('never hide a loss behind what is staged: the door counted more than went anywhere', () => {
    const stats = statsFrom(
      [
        {
          metric: 'ingestRequests',
          labels: { source_id: 'a', status: '202', code: 'ACCEPTED' },
          value: 5,
          lastAt: null,
        },
        { metric: 'envelopesWritten', labels: { source_id: 'a' }, value: 2, lastAt: null },
      ],
      { rows: 1, oldest: Date.parse('2026-01-01T00:00:00.000Z'), failure: null },
    );
    expect(stats).toMatchObject({ accepted: 5, written_rows: 2, staged_rows: 1, unaccounted: 3 });
  });
});
