/**
 * Rows staged per source, for the counters' upkeep: a module of its own, so that the functions that
 * stage and commit carry nothing of the sources' items.
 */
import { forEachAtMost } from '../../domain/at-most.ts';
import { addBySource } from '../../domain/ingest/staging.ts';
import { sourceKey } from './sources.ts';
import { recordsAbove } from './staged-slices.ts';
import { headOf } from './staging-heads.ts';
import { batchGetAll } from './table.ts';

/**
 * The rows each of these sources has staged for its table's commit: each source's table (its data
 * set, from its item), and each table's records above its head, read once. Rows of records that name
 * no sources (staged before records did) count for every source of their table.
 */
export async function stagedOfSources(sources: readonly string[]): Promise<Map<string, number>> {
  const tables = new Map<string, string[]>();
  for (const item of await batchGetAll(sources.map(sourceKey))) {
    const tableId = typeof item.data_set_id === 'string' ? item.data_set_id : null;
    const sourceId = typeof item.source_id === 'string' ? item.source_id : null;
    if (tableId && sourceId) tables.set(tableId, [...(tables.get(tableId) ?? []), sourceId]);
  }
  const staged = new Map<string, number>();
  await forEachAtMost([...tables], 16, async ([tableId, ofTable]) => {
    const head = await headOf(tableId, false);
    const { bySource, unattributed } = addBySource(
      { bySource: new Map(), unattributed: 0 },
      await recordsAbove(tableId, head.through, false),
    );
    for (const source of ofTable) staged.set(source, (bySource.get(source) ?? 0) + unattributed);
  });
  return staged;
}
