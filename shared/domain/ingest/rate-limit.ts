/**
 * A source's rate limit (requests per second and burst), held by any number of ingest instances at
 * once with no item that all of them write.
 *
 * The allowance is a token bucket split into shards: N buckets of rate/N tokens a second and
 * ceil(burst/N) tokens at most, N chosen so that no shard gives more than `shardRate` tokens a
 * second. Each shard is one number in the table, the theoretical arrival time of its next token
 * (the generic cell rate algorithm), moved by a conditional write that needs no read first. So a
 * source limited to 10,000 requests a second is 40 shards of 250, each far inside DynamoDB's 1,000
 * writes a second per partition key.
 *
 * An instance takes tokens in leases: as many as it saw requests in the last `leaseMs` (one at
 * first, at most a shard's burst), spent by itself within `leaseMs` or dropped. A busy instance so
 * writes once per lease rather than per request, and a quiet one once per request, as before. A
 * shard holding less than a lease's least (1/`leastLeaseShare` of its burst, or all the instance
 * wants) is left to fill up, and is not asked again before it has: the instance knows its arrival
 * time from its last write, made or refused. A request is refused when the shards tried (at most
 * `shardsPerRequest`, at random among those not known to be short) give nothing; Retry-After is
 * when the first shard known to be short has a token. After such a round an instance makes no
 * other for a random wait that doubles with each fruitless round and halves with each lease:
 * however many instances a source's traffic reaches, over its limit they share the shards' writes
 * among themselves rather than each adding its own.
 *
 * How exact: over any period of t seconds a source admits at most rate × t + N × ceil(burst / N)
 * (the buckets) + rate × leaseMs (tokens leased just before the period, spent in it). Tokens
 * dropped with an expired lease, and shards not tried, only ever refuse more, never admit more.
 */

/** A shard's state, as its store answers: the arrival time of its next token (ms), null before the first take. */
export interface ShardReading {
  /** Whether the write was made (its condition held). */
  done: boolean;
  arrivalMs: number | null;
}

/** The shards' store: two conditional writes, each answering the arrival time it left or found. */
export interface RateShardStore {
  /** Sets the arrival time to `to` when the shard is idle: no arrival time yet, or one before `idleBefore`. */
  restart(sourceId: string, shard: number, input: { idleBefore: number; to: number }): Promise<ShardReading>;
  /** Adds `by` to the arrival time when it lies in [`from`, `atMost`] (the shard is busy and has room). */
  advance(sourceId: string, shard: number, input: { from: number; atMost: number; by: number }): Promise<ShardReading>;
}

export interface RateDecision {
  allowed: boolean;
  /** When refused: how long until a request may be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

/** No shard gives more tokens a second than this. */
export const shardRate = 250;
/** How long leased tokens may be spent. */
export const leaseMs = 100;
/** A lease takes at least this share of a shard's burst (or what it wants, if less): a shard is not leased a token at a time. */
export const leastLeaseShare = 16;
/** Shards tried for one request before it is refused. */
export const shardsPerRequest = 2;
/** The first wait after a round of shards that gave nothing; it doubles with each such round, up to a second. */
export const probeGapMs = 20;
const maxBackoffMs = 1000;

/**
 * The lowest limit a source may set: about one request a day. A token interval of days still adds to a
 * clock reading well inside a safe integer; 1e-13 a second (once accepted) made it overflow on every request.
 */
export const leastRequestsPerSecond = 0.00001;

/** How a limit is split: the shards, each one's token interval (ms) and burst. */
export function shardsFor(requestsPerSecond: number, burst: number) {
  // A limit stored before the least was checked is held to it.
  const rate = Math.max(leastRequestsPerSecond, requestsPerSecond);
  const count = Math.min(64, Math.max(1, Math.ceil(rate / shardRate)));
  return { count, intervalMs: (1000 * count) / rate, burst: Math.max(1, Math.ceil(burst / count)) };
}

interface SourceState {
  limit: string;
  shards: ReturnType<typeof shardsFor>;
  /** Tokens leased and not spent, usable until `until`. */
  pocket: { tokens: number; until: number };
  /** The last arrival time seen per shard. */
  arrival: Map<number, number | null>;
  /** Shards found short: when one has a token again, and when it holds a lease's least. */
  freeAt: Map<number, number>;
  askAgainAt: Map<number, number>;
  /**
   * After a round of shards that gave nothing, no round before `nextRoundAt`: a random wait that
   * doubles with each such round and halves with each lease (instances over the limit so share the
   * shards' writes among themselves, however many they are).
   */
  backoffMs: number;
  nextRoundAt: number;
  /** Requests taken in the current second, and the last second's count (a lease's size). */
  window: { start: number; taken: number; previous: number };
  /** Calls for one source run one at a time in an instance. */
  queue: Promise<unknown>;
}

export class RateLimiter {
  private readonly sources = new Map<string, SourceState>();

  constructor(
    private readonly store: RateShardStore,
    private readonly random: () => number = Math.random,
  ) {}

  /** Takes one request from the source's allowance at `nowMs`. */
  take(sourceId: string, requestsPerSecond: number, burst: number, nowMs: number): Promise<RateDecision> {
    const limit = `${requestsPerSecond}/${burst}`;
    let state = this.sources.get(sourceId);
    if (!state || state.limit !== limit) {
      if (this.sources.size >= 10_000) this.sources.clear();
      state = {
        limit,
        shards: shardsFor(requestsPerSecond, burst),
        pocket: { tokens: 0, until: 0 },
        arrival: new Map(),
        freeAt: new Map(),
        askAgainAt: new Map(),
        backoffMs: 0,
        nextRoundAt: 0,
        window: { start: nowMs, taken: 0, previous: 0 },
        queue: Promise.resolve(),
      };
      this.sources.set(sourceId, state);
    }
    const held = state;
    const run = held.queue.then(() => this.takeFrom(sourceId, held, nowMs));
    held.queue = run.catch(() => undefined);
    return run;
  }

  private async takeFrom(sourceId: string, state: SourceState, now: number): Promise<RateDecision> {
    const { window, pocket } = state;
    if (now - window.start >= 1000) {
      window.previous = now - window.start >= 2000 ? 0 : window.taken;
      window.start = now;
      window.taken = 0;
    }
    window.taken++;
    if (pocket.tokens > 0 && now < pocket.until) {
      pocket.tokens--;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    if (now >= state.nextRoundAt) {
      const wanted = Math.min(
        state.shards.burst,
        Math.max(1, Math.ceil((Math.max(window.previous, window.taken) * leaseMs) / 1000)),
      );
      const candidates = [...Array(state.shards.count).keys()].filter(
        (shard) => (state.askAgainAt.get(shard) ?? 0) <= now,
      );
      let tried = 0;
      for (; tried < shardsPerRequest && candidates.length > 0; tried++) {
        const [shard] = candidates.splice(Math.floor(this.random() * candidates.length), 1) as [number];
        const taken = await this.lease(sourceId, state, shard, wanted, now);
        if (taken > 0) {
          state.pocket = { tokens: taken - 1, until: now + leaseMs };
          state.backoffMs = state.backoffMs < probeGapMs ? 0 : state.backoffMs / 2;
          return { allowed: true, retryAfterSeconds: 0 };
        }
      }
      if (tried > 0) {
        state.backoffMs = Math.min(maxBackoffMs, Math.max(probeGapMs, state.backoffMs * 2));
        state.nextRoundAt = now + this.random() * state.backoffMs;
      }
    }
    const free = [...Array(state.shards.count).keys()].map((shard) => state.freeAt.get(shard) ?? now);
    return { allowed: false, retryAfterSeconds: Math.max(0, Math.min(...free) - now) / 1000 };
  }

  /** Takes up to `wanted` tokens from one shard: how many it got (0 when it had none). */
  private async lease(sourceId: string, state: SourceState, shard: number, wanted: number, now: number) {
    const { intervalMs: interval, burst } = state.shards;
    let known = state.arrival.get(shard) ?? null;
    // Two writes at most: one on what this instance knew of the shard, one on what the store answered.
    for (let round = 0; round < 2; round++) {
      let reading: ShardReading;
      let count = wanted;
      if (known === null || known < now) {
        reading = await this.store.restart(sourceId, shard, { idleBefore: now, to: now + count * interval });
      } else {
        // The arrival time may go up to now + burst intervals: room for that many tokens. Fewer than
        // a lease's least: the shard is left to fill up rather than leased a token at a time.
        const room = Math.floor((now + burst * interval - known) / interval + 1e-9);
        const least = Math.min(wanted, Math.ceil(burst / leastLeaseShare));
        if (room < least) {
          this.markShort(state, shard, known, least);
          return 0;
        }
        count = Math.min(wanted, room);
        reading = await this.store.advance(sourceId, shard, {
          from: now,
          atMost: now + (burst - count) * interval,
          by: count * interval,
        });
      }
      state.arrival.set(shard, reading.arrivalMs);
      if (reading.done) {
        state.freeAt.delete(shard);
        state.askAgainAt.delete(shard);
        return count;
      }
      known = reading.arrivalMs;
    }
    return 0;
  }

  /**
   * The shard has no token before its arrival time less its burst (a refusal's wait), and not
   * `least` before least - 1 intervals more: it is asked again then.
   */
  private markShort(state: SourceState, shard: number, arrival: number, least: number): void {
    const { intervalMs, burst } = state.shards;
    state.freeAt.set(shard, arrival - (burst - 1) * intervalMs);
    state.askAgainAt.set(shard, arrival - (burst - least) * intervalMs);
  }
}
