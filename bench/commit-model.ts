/**
 * How many commits, files and staged slices a traffic shape makes under the service's commit rule,
 * simulated over a day (no service runs here; the cost bench prices the result with unit costs it
 * measured through local mode, and `npm run bench zipf` checks the rule against a real run).
 *
 * The rule, as shared/domain/ingest/staging.ts applies it: the writer stages each batching window's
 * envelopes (all connections together) at the window's end, a record per table; for each table it
 * sends a commit trigger for when the table's oldest envelope there is a freshness target old,
 * unless one it sent arrives by then and more than a writer's lifetime later; when a trigger arrives
 * (or the table's staged bytes reach the size target) the table is committed with everything staged
 * for it: one file per day partition. Requests arrive at a steady rate, each from a connection chosen
 * by Zipf rank, as bench/zipf-traffic.ts sends them; one writer instance takes every batch.
 */
import { seededRandom } from './envelopes.ts';
import { zipfChooser } from './zipf-traffic.ts';

export interface TrafficShape {
  connections: number;
  eventsPerSecond: number;
  /** Zipf exponent of the connections' rates (1.0: the k-th sends 1/k of the first's). */
  exponent: number;
  eventBytes: number;
}

export interface CommitRule {
  freshnessSeconds: number;
  sizeTargetBytes: number;
  /** A trigger arriving this soon after a batch is not relied on for it: the batch sends its own. */
  writerLifetimeSeconds: number;
  /** The longest a trigger can be delayed (SQS: 900 s); one due later arrives early and is sent again. */
  maxTriggerDelaySeconds: number;
  /** The writer's batching window: envelopes are staged at its end. */
  windowSeconds: number;
  /** How often one ingest instance writes its counts (COUNTER_FLUSH_SECONDS). */
  doorFlushSeconds: number;
}

export interface CommitFigures {
  events: number;
  commits: number;
  files: number;
  /** Staged slices the commits read (one per writer batch and table): a record each. */
  slices: number;
  /** Staged objects committers read, each once by a warm committer that keeps it. */
  batchReads: number;
  /** Commit triggers the writer sent (each also lists its table as pending), and those sent again for arriving early. */
  triggers: number;
  requeued: number;
  batches: number;
  /** Counter writes: the receipts raised by commits (one per connection and 15-minute epoch a commit holds). */
  receiptWrites: number;
  /** Counter writes of one ingest instance: one per connection with requests in each flush interval. */
  doorWrites: number;
  commitsPerEvent: number;
  rowsPerFile: number;
  slicesPerEvent: number;
  batchReadsPerEvent: number;
  triggersPerEvent: number;
  /** Trigger arrivals per event, the writer's and those sent again (each a committer's read of the table). */
  arrivalsPerEvent: number;
  /** Counter writes per event: receipts raised by commits, and the door's own. */
  counterWritesPerEvent: number;
  eventsPerBatch: number;
  /** Connections that sent at least once. */
  activeConnections: number;
  /** The longest an envelope waited between its arrival and its commit. */
  maxWaitSeconds: number;
}

interface Staged {
  oldest: number;
  bytes: number;
  rows: number;
  days: Set<number>;
  batches: Set<number>;
  epochs: Set<number>;
}

/** Simulates `seconds` of the traffic (a day by default), from a start at midnight UTC. */
export function simulateCommits(traffic: TrafficShape, rule: CommitRule, seconds = 86_400, seed = 1): CommitFigures {
  const choose = zipfChooser(traffic.connections, traffic.exponent, seededRandom(seed));
  const interval = 1 / traffic.eventsPerSecond;
  const total = Math.round(seconds * traffic.eventsPerSecond);
  const staged = new Map<number, Staged>();
  const active = new Set<number>();
  const figures = {
    commits: 0,
    files: 0,
    slices: 0,
    batchReads: 0,
    batches: 0,
    receiptWrites: 0,
    doorWrites: 0,
    maxWaitSeconds: 0,
    triggers: 0,
    requeued: 0,
  };
  const doorIntervals = new Set<string>();
  let doorInterval = 0;
  // Envelopes of the open window: staged together when it closes.
  let window: { index: number; events: { connection: number; at: number }[] } = { index: 0, events: [] };
  /** The writer's last trigger per table: when it arrives, and the due time it was sent for. */
  const sent = new Map<number, { at: number; dueAt: number }>();
  /** Triggers on their way, earliest first (a binary heap), each naming its table. */
  const arrivals = new ArrivalHeap();
  /** How many of a table's triggers are on their way, and the earliest. */
  const onTheirWay = new Map<number, number[]>();
  /** Objects a warm committer keeps: each read once. */
  const read = new Set<number>();
  const arrive = (at: number, connection: number) => {
    arrivals.push(at, connection);
    onTheirWay.set(connection, [...(onTheirWay.get(connection) ?? []), at]);
  };
  const commit = (connection: number, now: number) => {
    const table = staged.get(connection);
    if (!table) return;
    figures.commits++;
    figures.files += table.days.size;
    figures.slices += table.batches.size;
    for (const batch of table.batches)
      if (!read.has(batch)) {
        read.add(batch);
        figures.batchReads++;
      }
    figures.receiptWrites += table.epochs.size;
    figures.maxWaitSeconds = Math.max(figures.maxWaitSeconds, now - table.oldest);
    staged.delete(connection);
  };
  /** Triggers that arrived by `now`: the table committed when due, else the trigger sent again for when it is. */
  const deliver = (now: number) => {
    while (arrivals.size > 0 && arrivals.peek() <= now) {
      const { at, connection } = arrivals.pop();
      const waiting = (onTheirWay.get(connection) ?? []).filter((other) => other !== at);
      onTheirWay.set(connection, waiting);
      const table = staged.get(connection);
      if (!table) continue;
      const dueAt = table.oldest + rule.freshnessSeconds;
      if (dueAt <= at) commit(connection, at);
      else if (!waiting.some((other) => other <= dueAt)) {
        figures.requeued++;
        arrive(Math.min(dueAt, at + rule.maxTriggerDelaySeconds), connection);
      }
    }
  };

  const stage = (closedAt: number) => {
    if (window.events.length === 0) return;
    figures.batches++;
    const inBatch = new Map<number, number>();
    for (const { connection, at } of window.events) {
      const table = staged.get(connection) ?? {
        oldest: at,
        bytes: 0,
        rows: 0,
        days: new Set<number>(),
        batches: new Set<number>(),
        epochs: new Set<number>(),
      };
      table.oldest = Math.min(table.oldest, at);
      table.bytes += traffic.eventBytes;
      table.rows++;
      table.days.add(Math.floor(at / 86_400));
      table.batches.add(window.index);
      table.epochs.add(Math.floor(at / 900));
      staged.set(connection, table);
      inBatch.set(connection, Math.min(inBatch.get(connection) ?? at, at));
    }
    for (const [connection, oldest] of inBatch) {
      const table = staged.get(connection) as Staged;
      if (table.bytes >= rule.sizeTargetBytes) {
        commit(connection, closedAt);
        continue;
      }
      const dueAt = oldest + rule.freshnessSeconds;
      const known = sent.get(connection);
      if (known && known.dueAt <= dueAt && known.at - closedAt > rule.writerLifetimeSeconds) continue;
      const at = Math.max(closedAt, Math.min(dueAt, closedAt + rule.maxTriggerDelaySeconds));
      figures.triggers++;
      sent.set(connection, { at, dueAt });
      arrive(at, connection);
    }
  };

  for (let i = 0; i < total; i++) {
    const at = i * interval;
    const index = Math.floor(at / rule.windowSeconds);
    if (index !== window.index) {
      const closedAt = (window.index + 1) * rule.windowSeconds;
      deliver(closedAt);
      stage(closedAt);
      window = { index, events: [] };
    }
    const connection = choose();
    active.add(connection);
    const flushInterval = Math.floor(at / rule.doorFlushSeconds);
    if (flushInterval !== doorInterval) {
      figures.doorWrites += doorIntervals.size;
      doorIntervals.clear();
      doorInterval = flushInterval;
    }
    doorIntervals.add(String(connection));
    window.events.push({ connection, at });
  }
  stage((window.index + 1) * rule.windowSeconds);
  figures.doorWrites += doorIntervals.size;
  // The day's last envelopes, committed as their triggers arrive.
  deliver(Number.POSITIVE_INFINITY);
  return {
    events: total,
    ...figures,
    commitsPerEvent: figures.commits / total,
    rowsPerFile: total / figures.files,
    slicesPerEvent: figures.slices / total,
    batchReadsPerEvent: figures.batchReads / total,
    triggersPerEvent: figures.triggers / total,
    arrivalsPerEvent: (figures.triggers + figures.requeued) / total,
    counterWritesPerEvent: (figures.receiptWrites + figures.doorWrites) / total,
    eventsPerBatch: total / figures.batches,
    activeConnections: active.size,
  };
}

/** Arrival times with their tables, the earliest on top. */
class ArrivalHeap {
  private readonly items: { at: number; connection: number }[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): number {
    return this.items[0]?.at ?? Number.POSITIVE_INFINITY;
  }

  push(at: number, connection: number): void {
    const items = this.items;
    items.push({ at, connection });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as { at: number }).at <= at) break;
      [items[parent], items[i]] = [
        items[i] as { at: number; connection: number },
        items[parent] as { at: number; connection: number },
      ];
      i = parent;
    }
  }

  pop(): { at: number; connection: number } {
    const items = this.items;
    const top = items[0] as { at: number; connection: number };
    const last = items.pop() as { at: number; connection: number };
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < items.length && (items[left] as { at: number }).at < (items[smallest] as { at: number }).at)
          smallest = left;
        if (right < items.length && (items[right] as { at: number }).at < (items[smallest] as { at: number }).at)
          smallest = right;
        if (smallest === i) break;
        [items[smallest], items[i]] = [
          items[i] as { at: number; connection: number },
          items[smallest] as { at: number; connection: number },
        ];
        i = smallest;
      }
    }
    return top;
  }
}
