/**
 * Envelopes reach their table exactly once per message id, however often they are delivered,
 * redriven or raced for by two committers. The rule is Tributary's; the Delta library is handed it
 * as a RowDeduplication (delta/operations/append.ts) and carries what the rule needs in each
 * commit's commitInfo: the engine (`engineInfo: Tributary`), the run (`txnId`), and the first and
 * last ingest time of its rows (`tributary.ingested`).
 *
 * A message can only be in versions committed after it was ingested, so a batch is checked against
 * the versions committed since its oldest `ingested_at` (less a margin for clocks), as the log
 * itself lists them. Before each attempt the run records the message ids it is about to commit,
 * under its run id, which its commit names: whichever Tributary commit the log holds, its ids can
 * be found, even when its writer stopped right after the commit, and a writer that loses a race
 * learns at once which of its rows the winner holds. Only the ids of commits whose ingest range
 * meets the rows' are read: rows of a busy table arrive in order, so a commit reads the ids of the
 * one or two commits before it, not of every commit since its rows arrived.
 */
import type { CommitSummary } from '#delta/kernel/log.ts';
import type { RowDeduplication } from '#delta/operations/append.ts';

/** The engine every Tributary commit names in its commitInfo (`engineInfo`). */
export const tributaryEngine = 'Tributary';

/** Clocks of the ingest and writer functions may disagree by this much; checks look back this far further. */
export const clockMarginMs = 5 * 60_000;

/** The commitInfo field that names the ingest times (milliseconds) of an append's rows, first and last. */
export const ingestedField = 'tributary.ingested';

/**
 * The commitInfo field of a commit whose rows are counted as written once per run (a count keyed by
 * its run id): a later append that finds rows of its own in such a commit may count the commit again,
 * adding nothing when it was counted. A commit without it was counted otherwise, and never again.
 */
export const countedField = 'tributary.counted';
export const countedOncePerRun = 'once-per-run';

/** A Tributary commit found to hold rows an append was asked to write: its run, and the rows it holds. */
export interface HeldRun {
  runId: string;
  rows: number;
}

/** What Tributary keeps of the message ids its commits hold (DynamoDB, or an in-memory stand-in). */
export interface MessageIdRecords {
  /** Before an attempt: the message ids a run's commit will hold, replacing what the run held before. */
  holdIds(tableId: string, runId: string, messageIds: string[]): Promise<void>;
  /** The message ids the runs' commits hold, by run id (runs unknown here are left out). */
  idsOf(tableId: string, runIds: string[]): Promise<Map<string, string[]>>;
}

/**
 * A row's message id and when it was ingested (milliseconds): the same for every copy of a message
 * id, whichever copy a commit holds (a range that met one copy's time and not another's would let
 * the second be written again), or differing from another copy's by at most
 * `withinMs` (an id that does not carry its first copy's time): the commits whose rows' times come
 * that near are read too.
 */
export interface MessageIdentity {
  messageId: string;
  ingestedAt: number;
  withinMs?: number;
}

interface IngestedRange {
  from: number;
  to: number;
}

/** The ingest range a commit names (null for any other commit, or one made before it was written). */
function ingestedRange(value: unknown): IngestedRange | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [from, to] = value.map(Number) as [number, number];
  return Number.isFinite(from) && Number.isFinite(to) && from <= to ? { from, to } : null;
}

/**
 * The message ids Tributary's commits among `commits` hold that may be among rows ingested within
 * `rows`: a commit that names the ingest times of its rows and holds none of that range cannot
 * hold any of them, and its ids are not read.
 */
async function idsHeldBy(
  records: MessageIdRecords,
  tableId: string,
  commits: CommitSummary[],
  rows: IngestedRange,
): Promise<Map<string, string[]>> {
  const runs = commits.flatMap((commit) => {
    if (commit.engine !== tributaryEngine || !commit.txnId) return [];
    const ingested = ingestedRange(commit.info[ingestedField]);
    return !ingested || (ingested.from <= rows.to && ingested.to >= rows.from) ? [commit.txnId] : [];
  });
  if (runs.length === 0) return new Map();
  return records.idsOf(tableId, runs);
}

/** The runs counted once per run among `commits`. */
const countedRuns = (commits: CommitSummary[]) =>
  new Set(
    commits.flatMap((commit) =>
      commit.txnId && commit.info[countedField] === countedOncePerRun ? [commit.txnId] : [],
    ),
  );

/**
 * Exactly once per message id, as the Delta library's append asks it: the batch's own repeats left
 * out, rows a commit since the oldest ingest (less the clocks' margin) holds left out, each commit
 * naming its rows' ingest range, and its ids held under its run before each attempt. `held` hears of
 * each commit counted once per run that holds any of the rows (its run, and how many rows it holds),
 * so that its caller can count it again where its writer stopped before counting it.
 */
export function exactlyOncePerMessage<Row>(
  records: MessageIdRecords,
  tableId: string,
  identify: (row: Row) => MessageIdentity,
  held?: (run: HeldRun) => void,
): RowDeduplication<Row> {
  const idOf = (row: Row) => identify(row).messageId;
  const rangeOf = (rows: Row[]): IngestedRange | null => {
    if (rows.length === 0) return null;
    let from = Number.POSITIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    for (const row of rows) {
      const { ingestedAt, withinMs = 0 } = identify(row);
      from = Math.min(from, ingestedAt - withinMs);
      to = Math.max(to, ingestedAt + withinMs);
    }
    return { from, to };
  };
  return {
    start(rows) {
      const unique = new Map<string, Row>();
      let since = Number.POSITIVE_INFINITY;
      for (const row of rows) {
        const { messageId, ingestedAt } = identify(row);
        if (!unique.has(messageId)) unique.set(messageId, row);
        since = Math.min(since, ingestedAt - clockMarginMs);
      }
      return { rows: [...unique.values()], since };
    },
    async unwritten(rows, commits) {
      const range = rangeOf(rows);
      if (!range) return rows;
      const byRun = await idsHeldBy(records, tableId, commits, range);
      const written = new Set([...byRun.values()].flat());
      const wanted = new Set(rows.map(idOf));
      if (held) {
        const counted = countedRuns(commits);
        for (const [runId, ids] of byRun)
          if (counted.has(runId) && ids.some((id) => wanted.has(id))) held({ runId, rows: ids.length });
      }
      return rows.filter((row) => !written.has(idOf(row)));
    },
    commitInfo(rows) {
      const range = rangeOf(rows);
      if (!range) return {};
      return { [ingestedField]: [range.from, range.to], ...(held ? { [countedField]: countedOncePerRun } : {}) };
    },
    beforeCommit: (rows, runId) => records.holdIds(tableId, runId, rows.map(idOf)),
  };
}
