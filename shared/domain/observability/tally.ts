/**
 * Counting without a table write per event. A process keeps its counts in memory and writes each
 * series' running total (never an increment) now and then, to an item of its own per epoch:
 *  - a total is idempotent: a write retried after a timeout, or arriving after a later one, never
 *    counts twice, because the store keeps the larger value;
 *  - a process starts a new epoch every `epochMs` (15 minutes, on the clock's quarter hours), so
 *    that settled epochs stop moving and each falls in one interval of the traffic history: the
 *    counters adapter folds them into one item per series and interval (foldSettledEpochs);
 *  - a series can be raised to a total seen elsewhere: the ingest door's count of accepted envelopes
 *    travels with each envelope as a receipt (epoch and running total for its source), and the
 *    door's series is raised to it as the envelope is committed. An instance that never writes its
 *    own counts (Lambda reclaims an idle one) so loses nothing that reached its table;
 *  - a count can go to a second series as well (`alsoCounts`: a source's to that of all sources), in
 *    the same epoch, its total travelling on the receipt beside the first's.
 * Urgent counts are written at the end of the invocation that made them; deferred ones (the door's,
 * once per request) when the oldest has waited `maxAgeMs` or `maxPending` have gathered. Coalesced
 * ones (the door's refusals) are urgent unless this process wrote their series less than
 * `coalesceMs` ago, and then due when that much has passed: a flood of refusals writes its series
 * once a second per instance, not once a request. (What an instance counted in its last second
 * before Lambda reclaims it is lost with it: refusals carry no receipt.)
 */
import type { MetricKey } from './metric-catalogue.ts';

/** Which pending series a partial write takes: by metric and labels, and whether they are due before answering. */
export type SeriesChoice = (series: { metric: MetricKey; labels: Record<string, string>; urgent: boolean }) => boolean;

export interface TotalWrite {
  metric: MetricKey;
  labels: Record<string, string>;
  epoch: string;
  value: number;
  /** When the series last moved (ISO). */
  lastAt: string;
}

interface Series extends TotalWrite {
  /** The value last written (or being written); the series is pending while value exceeds it. */
  written: number;
  /** Due before the current invocation answers (reset once written). */
  urgent: boolean;
  /** Epoch ms of the oldest change not yet written. */
  pendingSince: number | null;
  /** When this process last wrote the series (epoch ms), for coalesced counts. */
  writtenAt: number | null;
}

export interface TallyOptions {
  now?: () => number;
  epochMs?: number;
  maxAgeMs?: number;
  maxPending?: number;
  coalesceMs?: number;
  random?: () => string;
  /**
   * A series each count of a series also goes to, in the same epoch (null: none): the counters of all
   * sources beside each source's (metric-catalogue.ts `allSourcesLabels`).
   */
  alsoCounts?: (metric: MetricKey, labels: Record<string, string>) => Record<string, string> | null;
}

/** Deferred changes that make a write due, unless `maxPending` says otherwise: the ingest door writes its counts per thousand requests. */
export const defaultMaxPending = 1000;

const canonical = new WeakMap<Record<string, string>, string>();

/** Labels as one string, whatever their order (remembered for a labels object used again). */
export function canonicalLabels(labels: Record<string, string>): string {
  let text = canonical.get(labels);
  if (text === undefined) {
    text = JSON.stringify(Object.fromEntries(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b))));
    canonical.set(labels, text);
  }
  return text;
}

/** An epoch names when it started (base-36 seconds) and which process it belongs to. */
export function epochStartMs(epoch: string): number {
  const seconds = Number.parseInt(epoch.split('.')[0] ?? '', 36);
  return Number.isFinite(seconds) ? seconds * 1000 : 0;
}

export class Tally {
  private readonly series = new Map<string, Series>();
  private readonly now: () => number;
  private readonly epochMs: number;
  private readonly maxAgeMs: number;
  private readonly maxPending: number;
  private readonly coalesceMs: number;
  private readonly random: () => string;
  private readonly alsoCounts: NonNullable<TallyOptions['alsoCounts']>;
  private current: { epoch: string; startedAt: number } | null = null;
  private deferredChanges = 0;
  /**
   * Kept as series change, so that `due()` (asked at the end of every invocation) reads two fields
   * rather than every series: an instance of the ingest door holds one per source it has seen.
   * Whether a pending series is urgent, and when the oldest pending change was made.
   */
  private urgentPending = false;
  private oldestPendingAt: number | null = null;
  /** The earliest time a coalesced change falls due. */
  private coalescedDueAt: number | null = null;

  constructor(options: TallyOptions = {}) {
    this.now = options.now ?? Date.now;
    this.epochMs = options.epochMs ?? 15 * 60_000;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.maxPending = options.maxPending ?? defaultMaxPending;
    this.coalesceMs = options.coalesceMs ?? 1000;
    this.random = options.random ?? (() => Math.random().toString(36).slice(2, 10));
    this.alsoCounts = options.alsoCounts ?? (() => null);
  }

  /** This process's current epoch: one per epochMs of the clock, named by when that period started. */
  epoch(): string {
    const startedAt = Math.floor(this.now() / this.epochMs) * this.epochMs;
    if (this.current?.startedAt !== startedAt) {
      this.current = { epoch: `${Math.floor(startedAt / 1000).toString(36)}.${this.random()}`, startedAt };
    }
    return this.current.epoch;
  }

  private entry(metric: MetricKey, labels: Record<string, string>, epoch: string, urgent: boolean): Series {
    const key = `${metric}|${canonicalLabels(labels)}|${epoch}`;
    let series = this.series.get(key);
    if (!series) {
      series = {
        metric,
        labels,
        epoch,
        value: 0,
        written: 0,
        lastAt: '',
        urgent,
        pendingSince: null,
        writtenAt: null,
      };
      this.series.set(key, series);
    }
    series.urgent ||= urgent;
    return series;
  }

  private touch(series: Series, urgent: boolean, at: string): void {
    series.lastAt = at > series.lastAt ? at : series.lastAt;
    series.pendingSince ??= this.now();
    if (!urgent) this.deferredChanges++;
  }

  /** Keeps `due()`'s two fields true after a series changed. */
  private noteChange(series: Series): void {
    if (series.value <= series.written) return;
    if (series.urgent) this.urgentPending = true;
    if (series.pendingSince !== null)
      this.oldestPendingAt = Math.min(this.oldestPendingAt ?? series.pendingSince, series.pendingSince);
  }

  /**
   * Adds to a series in this process's epoch, and to the series `alsoCounts` names for it; answers the
   * epoch and the series' new total there (and the other's, or null).
   */
  add(
    metric: MetricKey,
    labels: Record<string, string>,
    by = 1,
    options: { deferred?: boolean; coalesced?: boolean } = {},
  ): { epoch: string; total: number; alsoTotal: number | null } {
    const epoch = this.epoch();
    const also = this.alsoCounts(metric, labels);
    return {
      epoch,
      total: this.addIn(epoch, metric, labels, by, options),
      alsoTotal: also ? this.addIn(epoch, metric, also, by, options) : null,
    };
  }

  private addIn(
    epoch: string,
    metric: MetricKey,
    labels: Record<string, string>,
    by: number,
    options: { deferred?: boolean; coalesced?: boolean },
  ): number {
    const now = this.now();
    const key = `${metric}|${canonicalLabels(labels)}|${epoch}`;
    const writtenAt = this.series.get(key)?.writtenAt ?? null;
    const held = options.coalesced && writtenAt !== null && now - writtenAt < this.coalesceMs;
    const urgent = !options.deferred && !held;
    const series = this.entry(metric, labels, epoch, urgent);
    series.value += by;
    if (held) {
      const dueAt = (writtenAt as number) + this.coalesceMs;
      this.coalescedDueAt = Math.min(this.coalescedDueAt ?? dueAt, dueAt);
    }
    this.touch(series, urgent || Boolean(held), new Date(now).toISOString());
    this.noteChange(series);
    return series.value;
  }

  /** A series' total in an epoch (this process's current one by default). */
  total(metric: MetricKey, labels: Record<string, string>, epoch = this.epoch()): number {
    return this.series.get(`${metric}|${canonicalLabels(labels)}|${epoch}`)?.value ?? 0;
  }

  /** A series' total in an epoch, as `add` answers it: and that of the series `alsoCounts` names for it (or null). */
  totals(
    metric: MetricKey,
    labels: Record<string, string>,
    epoch = this.epoch(),
  ): { total: number; alsoTotal: number | null } {
    const also = this.alsoCounts(metric, labels);
    return { total: this.total(metric, labels, epoch), alsoTotal: also ? this.total(metric, also, epoch) : null };
  }

  /**
   * Raises a series of any epoch to a total seen elsewhere (never lowers it), and the series
   * `alsoCounts` names for it to `alsoTotal` when one is given. A series raised, or already counted
   * here and not yet written, is then urgent: the counts it carries have reached the writer and are
   * due in the shared figure.
   */
  raise(
    metric: MetricKey,
    labels: Record<string, string>,
    epoch: string,
    total: number,
    at: string,
    alsoTotal?: number,
  ): void {
    this.raiseIn(metric, labels, epoch, total, at);
    const also = alsoTotal === undefined ? null : this.alsoCounts(metric, labels);
    if (also) this.raiseIn(metric, also, epoch, alsoTotal as number, at);
  }

  private raiseIn(metric: MetricKey, labels: Record<string, string>, epoch: string, total: number, at: string): void {
    const series = this.entry(metric, labels, epoch, false);
    if (total > series.value) {
      series.value = total;
      this.touch(series, true, at);
    }
    if (series.value > series.written) series.urgent = true;
    this.noteChange(series);
  }

  /** Whether a write is due: urgent changes, or deferred ones old or many enough. */
  due(options: { urgentOnly?: boolean } = {}): boolean {
    if (this.urgentPending) return true;
    if (this.coalescedDueAt !== null && this.now() >= this.coalescedDueAt) return true;
    if (!options.urgentOnly && this.oldestPendingAt !== null && this.now() - this.oldestPendingAt >= this.maxAgeMs)
      return true;
    return this.deferredChanges >= this.maxPending;
  }

  /**
   * Every series with changes not yet written (or those of them `only` picks), as totals to write;
   * they count as written from now.
   */
  drain(only?: SeriesChoice): TotalWrite[] {
    const writes: TotalWrite[] = [];
    const now = this.now();
    for (const series of this.series.values()) {
      if (series.value <= series.written || (only && !only(series))) continue;
      writes.push({
        metric: series.metric,
        labels: series.labels,
        epoch: series.epoch,
        value: series.value,
        lastAt: series.lastAt,
      });
      series.written = series.value;
      series.urgent = false;
      series.pendingSince = null;
      series.writtenAt = now;
    }
    if (only) {
      // What is left pending keeps its due: read again from the series (a few in the processes that pick).
      this.urgentPending = false;
      this.oldestPendingAt = null;
      for (const series of this.series.values()) this.noteChange(series);
      return writes;
    }
    this.deferredChanges = 0;
    this.urgentPending = false;
    this.oldestPendingAt = null;
    this.coalescedDueAt = null;
    this.forgetOldEpochs();
    return writes;
  }

  /** A write that failed: its series is due again (a later total supersedes it anyway). */
  failed(write: TotalWrite): void {
    const series = this.entry(write.metric, write.labels, write.epoch, true);
    series.written = Math.min(series.written, write.value - 1);
    series.pendingSince ??= this.now();
    this.noteChange(series);
  }

  /** Epochs other than the current one whose totals are written are of no further use here. */
  private forgetOldEpochs(): void {
    const current = this.current?.epoch;
    for (const [key, series] of this.series) {
      if (series.epoch !== current && series.value <= series.written) this.series.delete(key);
    }
  }
}

/**
 * Writes a tally's due totals, one write at a time. Many invocations at once (local mode serves
 * them in one process) may all find the counts due before the write that takes them has begun:
 * they share that write rather than queue one each, and a write whose turn comes when nothing is
 * due any more (the one before took the counts) writes nothing. Due counts so cost one write, not
 * a chain of writes each taking what gathered during the one before.
 */
export class TallyWriter {
  private writing: Promise<void> = Promise.resolve();
  /** The write not begun yet, which will take every count due when it begins. */
  private queued: Promise<void> | undefined;
  /** The partial write not begun yet, and the series it will take. */
  private queuedOnly: { only: SeriesChoice; run: Promise<void> } | undefined;

  /**
   * `write` takes the drained totals and hands back (`tally.failed`) any it could not write; a write
   * that rejects has all its totals handed back, and `onError` hears why. It is told when the totals
   * are some series only (flushOnly), written ahead of the rest.
   */
  constructor(
    private readonly tally: Tally,
    private readonly write: (writes: TotalWrite[], options: { partial: boolean }) => Promise<void>,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {}

  /** Resolves (never rejects) once what is due now has been written, or handed back to the tally as failed. */
  flush(): Promise<void> {
    if (this.queued) return this.queued;
    this.writing = this.writing.then(this.next, this.next);
    this.queued = this.writing;
    return this.queued;
  }

  /** The write whose turn came: every count due then. */
  private readonly next = async () => {
    this.queued = undefined;
    if (this.tally.due()) await this.writeDrained(this.tally.drain(), false);
  };

  /**
   * Writes now, after any write under way, the pending totals of the series `only` picks, due or not;
   * resolves (never rejects) once they are written or handed back as failed.
   */
  flushOnly(only: SeriesChoice): Promise<void> {
    // Asked again with the same choice before the write begins: that write takes these counts too.
    if (this.queuedOnly?.only === only) return this.queuedOnly.run;
    const run = async () => {
      this.queuedOnly = undefined;
      await this.writeDrained(this.tally.drain(only), true);
    };
    this.writing = this.writing.then(run, run);
    this.queuedOnly = { only, run: this.writing };
    return this.writing;
  }

  /** Writes drained totals; those it could not write go back to the tally. */
  private async writeDrained(writes: TotalWrite[], partial: boolean): Promise<void> {
    if (writes.length === 0) return;
    try {
      await this.write(writes, { partial });
    } catch (error) {
      for (const write of writes) this.tally.failed(write);
      this.onError(error as Error);
    }
  }
}
