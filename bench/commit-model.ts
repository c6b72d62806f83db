/**
 * How many commits, files and staged slices a traffic shape makes under the service's commit rule,
 * simulated over a day (no service runs here; the cost bench prices the result with unit costs it
 * measured through local mode, and `npm run bench zipf` checks the rule against a real run).
 *
 * The rule, as shared/domain/ingest/staging.ts applies it: the writer stages each batching window's
 * envelopes (all connections together) at the window's end; a commit pass runs every `passSeconds`
 * and commits every table whose oldest staged envelope has waited its freshness target, or whose
 * staged bytes reach the size target, with everything staged for it: one file per day partition.
 * Requests arrive at a steady rate, each from a connection chosen by Zipf rank, as bench/zipf-traffic.ts
 * sends them.
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
  passSeconds: number;
  /** The writer's batching window: envelopes are staged at its end. */
  windowSeconds: number;
  /** How often one ingest instance writes its counts (COUNTER_FLUSH_SECONDS). */
  doorFlushSeconds: number;
}

export interface CommitFigures {
  events: number;
  commits: number;
  files: number;
  /** Staged slices the commits read (one per writer batch and table). */
  slices: number;
  /** Staged objects the passes read, each read once by a pass that commits any of its tables. */
  batchReads: number;
  batches: number;
  /** Counter writes: the receipts raised by commits (one per connection and 15-minute epoch a commit holds). */
  receiptWrites: number;
  /** Counter writes of one ingest instance: one per connection with requests in each flush interval. */
  doorWrites: number;
  commitsPerEvent: number;
  rowsPerFile: number;
  slicesPerEvent: number;
  batchReadsPerEvent: number;
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
  };
  const doorIntervals = new Set<string>();
  let doorInterval = 0;
  // Envelopes of the open window: staged together when it closes.
  let window: { index: number; events: { connection: number; at: number }[] } = { index: 0, events: [] };
  let nextPass = rule.passSeconds;

  const stage = () => {
    if (window.events.length === 0) return;
    figures.batches++;
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
    }
  };
  const pass = (now: number) => {
    const read = new Set<number>();
    for (const [connection, table] of staged) {
      const due = table.oldest + rule.freshnessSeconds <= now || table.bytes >= rule.sizeTargetBytes;
      if (!due) continue;
      figures.commits++;
      figures.files += table.days.size;
      figures.slices += table.batches.size;
      for (const batch of table.batches) read.add(batch);
      figures.receiptWrites += table.epochs.size;
      figures.maxWaitSeconds = Math.max(figures.maxWaitSeconds, now - table.oldest);
      staged.delete(connection);
    }
    figures.batchReads += read.size;
  };

  for (let i = 0; i < total; i++) {
    const at = i * interval;
    const index = Math.floor(at / rule.windowSeconds);
    if (index !== window.index) {
      const closedAt = (window.index + 1) * rule.windowSeconds;
      while (nextPass < closedAt) {
        pass(nextPass);
        nextPass += rule.passSeconds;
      }
      stage();
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
  stage();
  figures.doorWrites += doorIntervals.size;
  // The day's last envelopes, committed as the passes after it would.
  while (staged.size > 0) {
    pass(nextPass);
    nextPass += rule.passSeconds;
  }
  return {
    events: total,
    ...figures,
    commitsPerEvent: figures.commits / total,
    rowsPerFile: total / figures.files,
    slicesPerEvent: figures.slices / total,
    batchReadsPerEvent: figures.batchReads / total,
    counterWritesPerEvent: (figures.receiptWrites + figures.doorWrites) / total,
    eventsPerBatch: total / figures.batches,
    activeConnections: active.size,
  };
}
