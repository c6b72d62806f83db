/** Data sets: listed, their files listed with download URLs, and deleted with everything written to them. */
import * as z from 'zod';
import { conflict, invalid, notFound } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import { effectiveTenantId, type Principal, requireTenantVisible } from '../principal.ts';
import { tenantFor } from '../tenants/guard.ts';
import type { Tenant } from '../tenants/model.ts';
import type { DataSet } from './model.ts';
import type { TableSnapshot } from './table.ts';

export interface DataSetFiles {
  /** Keys under a prefix in key order; `limit` stops early. */
  list(relativePrefix: string, options?: { limit?: number }): Promise<{ key: string; size: number }[]>;
  /** Throws unless every key is gone. */
  delete(relativeKeys: string[]): Promise<void>;
  presignGet(relativeKey: string, expiresInSeconds: number): Promise<string>;
}

/** Data sets' records and logs, in the table. */
export interface DataSetRecords {
  getTenant(tenantId: string): Promise<Tenant | null>;
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  listDataSetsByTenant(
    tenantId: string,
    filters: { pipelineId?: string | undefined },
    page: PageRequest,
  ): Promise<Page<DataSet>>;
  listAllDataSets(filters: { pipelineId?: string | undefined }, page: PageRequest): Promise<Page<DataSet>>;
  /** Whether a connection or pipeline still writes to the data set. */
  hasWriter(dataSet: DataSet): Promise<boolean>;
  /** Whether a run of the pipeline is under way (it holds the pipeline's lease), the pipeline deleted or not. */
  pipelineRunUnderWay(pipelineId: string): Promise<boolean>;
  deleteLog(dataSetId: string): Promise<void>;
  deleteDataSetItem(dataSetId: string): Promise<void>;
}

/** …and their files, in the tenant's store (only the functions that reach the store load S3). */
export interface DataSetDeps extends DataSetRecords {
  filesOf(dataSet: DataSet): Promise<DataSetFiles>;
  /** Whether envelopes accepted for the data set wait staged for their table's commit. */
  hasStagedEnvelopes(dataSetId: string): Promise<boolean>;
  /** Deletes the data set's failed deliveries, each kept envelope before its record. */
  forgetFailedDeliveries(dataSetId: string): Promise<void>;
  /** The table's latest snapshot (its last checkpoint and the commits after it), or the one at `version`. */
  snapshotOf(dataSet: DataSet, version?: number): Promise<TableSnapshot>;
}

/** Seals a position into a cursor of one data set's files list, and opens one (400 for any other). */
export interface FileCursors {
  seal(position: unknown): Promise<string>;
  open(cursor: string): Promise<unknown>;
}

export async function listDataSets(
  deps: DataSetRecords,
  principal: Principal,
  query: { tenant_id?: string | undefined; pipeline_id?: string | undefined } & PageRequest,
) {
  const tenantId = effectiveTenantId(principal, query.tenant_id);
  const filters = { pipelineId: query.pipeline_id };
  return tenantId ? deps.listDataSetsByTenant(tenantId, filters, query) : deps.listAllDataSets(filters, query);
}

export async function visibleDataSet(deps: DataSetRecords, principal: Principal, dataSetId: string): Promise<DataSet> {
  const dataSet = await deps.getDataSet(dataSetId);
  if (!dataSet) throw notFound('Data set');
  requireTenantVisible(principal, dataSet.tenant_id, 'Data set');
  return dataSet;
}

/** Presigned download URLs stay valid this long. */
export const downloadUrlSeconds = 15 * 60;

/** Where a page of the files list continues: the snapshot's version, and the last file given (newest first). */
const filesPosition = z.strictObject({
  version: z.number().int().min(0),
  after: z.strictObject({ time: z.number(), path: z.string() }),
});

/**
 * The files of a data set's latest snapshot, newest first, a page at a time, each with a presigned
 * download URL (15 minutes): the live files of the table opened as any Delta reader opens it (last
 * checkpoint, then the commits after it). A page is at most `limit` files (the contract's list
 * conventions), so an answer stays far below Lambda's 6 MB whatever the table holds; its cursor pins
 * the version, so the pages of one listing are one snapshot even while commits and compactions go on.
 * While a compaction commits, a reader sees either the small files or the compacted ones, never both.
 */
export async function listDataSetFiles(
  deps: DataSetDeps & { cursors: FileCursors },
  principal: Principal,
  dataSetId: string,
  page: PageRequest = { limit: 100 },
) {
  const dataSet = await visibleDataSet(deps, principal, dataSetId);
  const position = page.cursor ? filesPosition.safeParse(await deps.cursors.open(page.cursor)) : undefined;
  if (position && !position.success)
    throw invalid('Invalid cursor', [{ path: 'cursor', message: 'Not a cursor returned by this list' }]);
  const from = position?.data;
  const none = { version: dataSet.version, files: [], next_cursor: null };
  // Nothing committed yet: nothing to read (and no need to reach a store that may be down).
  if (!dataSet.storage_location || !dataSet.object_store_id || dataSet.version === null) return none;
  const snapshot = await deps.snapshotOf(dataSet, from?.version);
  if (snapshot.version < 0) return none;
  const newestFirst = (a: { time: number; path: string }, b: { time: number; path: string }) =>
    b.time - a.time || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0);
  const live = snapshot.files
    .map((file) => ({ file, key: { time: file.modificationTime, path: file.path } }))
    .filter(({ key }) => !from || newestFirst(from.after, key) < 0)
    .sort((a, b) => newestFirst(a.key, b.key));
  const pageFiles = live.slice(0, page.limit);
  const last = pageFiles.at(-1);
  const files = await deps.filesOf(dataSet);
  return {
    version: snapshot.version,
    files: await Promise.all(
      pageFiles.map(async ({ file }) => ({
        path: file.path,
        partition_values: file.partitionValues,
        size: file.size,
        num_records: file.records(),
        url: await files.presignGet(file.path, downloadUrlSeconds),
      })),
    ),
    next_cursor:
      live.length > page.limit && last ? await deps.cursors.seal({ version: snapshot.version, after: last.key }) : null,
  };
}

/**
 * What a request deletes at once: a table of at most this many objects and versions goes within a
 * few seconds (one listing, one delete call, a log of at most a few hundred items); a larger one is
 * deleted by a job, since an API function has less than 30 s.
 */
export const deletedAtOnce = { objects: 1000, versions: 200 };

/** A data set deleted now, or being deleted by a job (type Delete). */
export type Deletion = { deleted: true } | { deleted: false; jobId: string };

/**
 * Delete a data set.
 * Input: the data set. Output: deleted now, or the job deleting it.
 *  1. 409 while a connection or pipeline still writes to it (delete that first).
 *  2. A small table (deletedAtOnce) is removed now: its objects in the tenant store, then its log,
 *     then the data set itself.
 *  3. A larger one is handed to a job that removes it page by page (removeDataSet); the data set
 *     stays listed until the job has removed everything, and a failed job is retried by deleting again.
 *  4. The request removes a table only while it holds it against the table's jobs (a maintenance run,
 *     a Delete job): a compaction committing beside the removal would write a new file and a log entry
 *     into a table just deleted. When a job holds it, the deletion is a job too, which runs after it.
 *  5. 409 while envelopes accepted for it wait staged (its connection deleted moments ago), or while a
 *     run of its pipeline is under way (the pipeline deleted during the run): their commit would write
 *     into the table being removed.
 *  6. Its failed deliveries go with it: a tenant's payloads are not kept for a table it deleted.
 */
export async function deleteDataSet(
  deps: DataSetDeps & {
    queueDeletion(dataSet: DataSet): Promise<string>;
    /** Holds the table against its jobs until the answer is called; null while one of them holds it. */
    holdTable(dataSetId: string): Promise<(() => Promise<void>) | null>;
  },
  principal: Principal,
  dataSetId: string,
): Promise<Deletion> {
  const dataSet = await visibleDataSet(deps, principal, dataSetId);
  await tenantFor(deps, principal, dataSet.tenant_id, 'write');
  if (await deps.hasWriter(dataSet)) {
    throw conflict(
      `A ${dataSet.origin.type === 'Webhook' ? 'connection' : 'pipeline'} still writes to this data set; delete it first`,
    );
  }
  if (dataSet.origin.type === 'Pipeline' && (await deps.pipelineRunUnderWay(dataSet.origin.pipeline_id))) {
    // A run goes on after its pipeline is deleted, and commits its rows at its end.
    throw conflict('A run of the pipeline that writes this data set is still under way; delete it once the run ends');
  }
  if (dataSet.origin.type === 'Webhook' && (await deps.hasStagedEnvelopes(dataSetId))) {
    throw conflict(
      'Envelopes accepted for this data set wait to be committed (within its freshness target); delete it once they are',
    );
  }
  const release = await deps.holdTable(dataSetId);
  if (!release) return { deleted: false, jobId: await deps.queueDeletion(dataSet) };
  try {
    // Read again under the hold: a first commit may have fixed its storage since.
    const held = await deps.getDataSet(dataSetId);
    if (!held) return { deleted: true };
    if (held.storage_location) {
      const files = await deps.filesOf(held);
      const objects = await files.list('', { limit: deletedAtOnce.objects + 1 });
      if (objects.length > deletedAtOnce.objects || (held.version ?? 0) > deletedAtOnce.versions)
        return { deleted: false, jobId: await deps.queueDeletion(held) };
      if (objects.length > 0) await files.delete(objects.map((object) => object.key));
    }
    await deps.forgetFailedDeliveries(dataSetId);
    await deps.deleteLog(dataSetId);
    await deps.deleteDataSetItem(dataSetId);
    return { deleted: true };
  } finally {
    await release();
  }
}

/**
 * Remove a data set whatever its size (a Delete job): its objects a page of 1,000 at a time (calling
 * `betweenPages` after each, where a job may stop), then its failed deliveries, its log, then the data set. Answers the
 * number of objects removed. Repeating it after a failure goes on where it stopped.
 */
export async function removeDataSet(
  deps: Pick<DataSetDeps, 'filesOf' | 'forgetFailedDeliveries' | 'deleteLog' | 'deleteDataSetItem'>,
  dataSet: DataSet,
  betweenPages: () => Promise<void> = async () => undefined,
  /** Called once its objects are gone, before its records go: where a job's cancel is last answered. */
  beforeRecords: () => Promise<void> = async () => undefined,
): Promise<number> {
  let removed = 0;
  if (dataSet.storage_location) {
    const files = await deps.filesOf(dataSet);
    let previous = '';
    for (;;) {
      const page = await files.list('', { limit: 1000 });
      if (page.length === 0) break;
      const keys = page.map((object) => object.key);
      // A store that answers a delete without deleting must not keep this loop going.
      if (keys.join('\n') === previous) throw new Error('The store kept objects it was asked to delete');
      previous = keys.join('\n');
      await files.delete(keys);
      removed += keys.length;
      await betweenPages();
    }
  }
  await beforeRecords();
  await deps.forgetFailedDeliveries(dataSet.data_set_id);
  await deps.deleteLog(dataSet.data_set_id);
  await deps.deleteDataSetItem(dataSet.data_set_id);
  return removed;
}
