/**
 * In-memory stand-ins for staging's ports (shared/domain/ingest/staging.ts): each table's records and
 * head as the DynamoDB adapter keeps them (a head written only at the version it was read at, the
 * listing's condition as the adapter writes it), the platform bucket's staged objects read back by
 * byte range, and the commits queue, whose triggers the test delivers when its clock says they arrive.
 */
import {
  type CommitTrigger,
  type CommitTriggers,
  emptyHead,
  StagedObjectGone,
  type StagedRecord,
  type StagedRecords,
  type StagingHead,
  type StagingObjects,
} from '#shared/domain/ingest/staging.ts';

export interface MemoryStaging {
  records: StagedRecords;
  objects: StagingObjects;
  triggers: CommitTriggers;
  /** Records by table, by id. */
  staged: Map<string, Map<string, StagedRecord>>;
  heads: Map<string, StagingHead>;
  stored: Map<string, Buffer>;
  /** Triggers sent and not taken yet. */
  queue: CommitTrigger[];
  /** Takes the triggers that have arrived by now. */
  arrived(): CommitTrigger[];
  /** Requests made, by kind: what staging and committing cost. */
  requests: Record<string, number>;
  /** Every item written, as JSON: what no item may outgrow. */
  written: string[];
}

export function memoryStaging(clock: () => number = Date.now): MemoryStaging {
  const staged = new Map<string, Map<string, StagedRecord>>();
  const heads = new Map<string, StagingHead>();
  const stored = new Map<string, Buffer>();
  const queue: CommitTrigger[] = [];
  const requests: Record<string, number> = {};
  const written: string[] = [];
  const count = (kind: string, by = 1) => {
    requests[kind] = (requests[kind] ?? 0) + by;
  };
  const tableRecords = (tableId: string) => {
    let records = staged.get(tableId);
    if (!records) {
      records = new Map();
      staged.set(tableId, records);
    }
    return records;
  };
  const headOf = (tableId: string) => structuredClone(heads.get(tableId) ?? emptyHead);
  const setHead = (tableId: string, head: StagingHead) => {
    heads.set(tableId, structuredClone(head));
    written.push(JSON.stringify({ tableId, head }));
  };

  const records: StagedRecords = {
    async write(entries, writtenBy) {
      count('write records', Math.ceil(entries.length / 25));
      for (const { tableId, record } of entries) {
        if (clock() > writtenBy) throw new Error('Staged records could not be written in time');
        tableRecords(tableId).set(record.id, structuredClone(record));
        written.push(JSON.stringify({ tableId, record }));
      }
    },
    async head(tableId) {
      count('head');
      return headOf(tableId);
    },
    async heads(tableIds) {
      count('heads', Math.ceil(tableIds.length / 100));
      return new Map(tableIds.map((tableId) => [tableId, headOf(tableId)]));
    },
    async pending(tableId, through) {
      count('pending');
      return [...tableRecords(tableId).values()]
        .filter((record) => through === null || record.id > through)
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((record) => structuredClone(record));
    },
    async listPending(tableId, entry, now) {
      count('list');
      const head = headOf(tableId);
      const listedInTime =
        head.dueAt !== null && head.triggerAt !== null && head.dueAt <= entry.dueAt && head.triggerAt > now;
      if (listedInTime) return;
      setHead(tableId, { ...head, dueAt: entry.dueAt, triggerAt: entry.triggerAt, version: head.version + 1 });
    },
    async replaceHead(tableId, expected, head) {
      count('replace head');
      if (headOf(tableId).version !== expected) return false;
      const listed = head.dueAt !== null && head.triggerAt !== null;
      setHead(tableId, {
        ...head,
        dueAt: listed ? head.dueAt : null,
        triggerAt: listed ? head.triggerAt : null,
        version: expected + 1,
      });
      return true;
    },
    async remove(tableId, ids) {
      count('remove records', Math.ceil(ids.length / 25));
      for (const id of ids) tableRecords(tableId).delete(id);
    },
    async listed(dueBefore) {
      count('listed');
      return [...heads]
        .filter(([, head]) => head.dueAt !== null && (dueBefore === undefined || head.dueAt < dueBefore))
        .map(([tableId, head]) => ({ tableId, head: structuredClone(head) }));
    },
  };

  const objects: StagingObjects = {
    async put(key, body) {
      count('put object');
      stored.set(key, Buffer.from(body));
    },
    async read(key, offset, length) {
      count('read object');
      const body = stored.get(key);
      if (!body) throw new StagedObjectGone(key);
      return body.subarray(offset, offset + length);
    },
    async remove(keys) {
      count('remove objects');
      for (const key of keys) stored.delete(key);
    },
  };

  const triggers: CommitTriggers = {
    maxDelayMs: 15 * 60_000,
    // Delivered exactly when meant to.
    earlyMs: 0,
    async send(sent) {
      count('send triggers', Math.ceil(sent.length / 10));
      queue.push(...sent.map((trigger) => ({ ...trigger })));
    },
  };

  return {
    records,
    objects,
    triggers,
    staged,
    heads,
    stored,
    queue,
    requests,
    written,
    arrived() {
      const now = clock();
      const due = queue.filter((trigger) => trigger.at <= now);
      queue.splice(0, queue.length, ...queue.filter((trigger) => trigger.at > now));
      return due;
    },
  };
}
