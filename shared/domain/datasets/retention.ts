/**
 * A data set's data retention (`tributary.dataRetention`, else the deployment's DATA_RETENTION_DAYS):
 * whole days (UTC, the `dt` partition: the date a row arrived), each removed once every row of it
 * has outlived the retention. Staged envelopes follow the same calendar on their way into the
 * table, so that no commit puts rows into a day maintenance removes. Every day is kept without a
 * retention, and in a table maintenance leaves whole (one not partitioned by day, or append-only).
 * The Delta library removes what this names (a maintenance plan's partition expiry).
 */
import { appendOnly } from '#delta/kernel/features.ts';
import type { AddFile, PartitionValues } from '#delta/kernel/log.ts';
import type { TableState } from '#delta/kernel/snapshot.ts';
import type { MaintenancePlan } from '#delta/operations/maintenance.ts';
import { tableSettings } from './table-settings.ts';

const dayMs = 86_400_000;
const isDay = (value: string | null | undefined): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

type TableDescription = Pick<TableState, 'protocol' | 'metadata'>;

/**
 * The oldest day a retention keeps at `now` (YYYY-MM-DD, UTC): a day before it ended longer ago
 * than the retention, so every row of it (its dt is the UTC date it arrived) is older than that.
 */
export function firstDayKept(now: number, retentionMs: number): string {
  return new Date(now - retentionMs).toISOString().slice(0, 10);
}

/** When every row of `day` has outlived the retention: the day's end plus the retention. */
export function dayExpiresAt(day: string, retentionMs: number): number {
  return Date.parse(`${day}T00:00:00Z`) + dayMs + retentionMs;
}

/** The table's data retention: its property, else the deployment's default; null: rows are kept. */
export function retentionOf(table: TableDescription, defaultRetentionMs: number | null): number | null {
  return tableSettings(table.metadata?.configuration ?? {}).dataRetentionMs ?? defaultRetentionMs;
}

/** Whether the table's data retention still keeps a row of `day` at `now`. */
export function retentionKeeps(
  table: TableDescription,
  now: number,
  defaultRetentionMs: number | null,
): (day: string) => boolean {
  const retentionMs = retentionOf(table, defaultRetentionMs);
  if (retentionMs === null || !table.metadata?.partitionColumns.includes('dt') || appendOnly(table)) return () => true;
  const keptFrom = firstDayKept(now, retentionMs);
  return (day) => !isDay(day) || day >= keptFrom;
}

/** The oldest day partition among `files` (by `dt`), null when none is a day. */
export function oldestDay(files: Iterable<AddFile>): string | null {
  let oldest: string | null = null;
  for (const file of files) {
    const day = file.partitionValues.dt;
    if (isDay(day) && (oldest === null || day < oldest)) oldest = day;
  }
  return oldest;
}

/** The day partitions (by `dt`) a retention removes at `now`: dates before the first day kept; anything else stays. */
export function expiredDays(now: number, retentionMs: number): (values: PartitionValues) => boolean {
  const keptFrom = firstDayKept(now, retentionMs);
  return (values) => isDay(values.dt) && values.dt < keptFrom;
}

/** What a maintenance run removes of the table at `now`: its retention, the first day kept, the library's expiry. */
export interface RetentionPlan {
  retentionMs: number | null;
  /** The oldest day the retention keeps (YYYY-MM-DD); every day partition before it is removed. */
  keptFrom: string | null;
  expiry: MaintenancePlan['expiry'];
}

export function retentionPlan(table: TableDescription, now: number, defaultRetentionMs: number | null): RetentionPlan {
  const retentionMs = retentionOf(table, defaultRetentionMs);
  if (retentionMs === null) return { retentionMs, keptFrom: null, expiry: null };
  const keptFrom = firstDayKept(now, retentionMs);
  if (!table.metadata?.partitionColumns.includes('dt'))
    return {
      retentionMs,
      keptFrom,
      expiry: { skipped: 'The table is not partitioned by day (dt), so its rows cannot be removed a day at a time' },
    };
  return {
    retentionMs,
    keptFrom,
    expiry: {
      expired: expiredDays(now, retentionMs),
      nextAt(files) {
        const oldest = oldestDay(files);
        return oldest === null ? null : dayExpiresAt(oldest, retentionMs);
      },
    },
  };
}
