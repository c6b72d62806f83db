/**
 * In-memory stand-ins for staging's ports (shared/domain/ingest/staging.ts): the ledger as the
 * DynamoDB adapter keeps it (batches, coverage records, failures, totals, the pass lease) and the
 * platform bucket's staged objects, read back by byte range.
 */
import type {
  Coverage,
  StagedBatch,
  StagedTotals,
  StagingLedger,
  StagingObjects,
  TableFailure,
} from '#shared/domain/ingest/staging.ts';

export interface MemoryStaging {
  ledger: StagingLedger;
  objects: StagingObjects;
  batches: Map<string, StagedBatch>;
  coverage: Map<string, Coverage>;
  failures: Map<string, TableFailure>;
  stored: Map<string, Buffer>;
  totals: { tables: Map<string, StagedTotals>; asOf: string | null } | null;
  lease: { holder: string; until: number } | null;
  /** Requests made, by kind: what staging a batch or a pass costs. */
  requests: Record<string, number>;
}

export function memoryStaging(clock: () => number = Date.now): MemoryStaging {
  const state: MemoryStaging = {
    batches: new Map(),
    coverage: new Map(),
    failures: new Map(),
    stored: new Map(),
    totals: null,
    lease: null,
    requests: {},
    ledger: undefined as unknown as StagingLedger,
    objects: undefined as unknown as StagingObjects,
  };
  const count = (kind: string) => {
    state.requests[kind] = (state.requests[kind] ?? 0) + 1;
  };
  state.ledger = {
    async addBatch(batch) {
      count('addBatch');
      state.batches.set(batch.id, structuredClone(batch));
    },
    async read() {
      count('read');
      return {
        batches: [...state.batches.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((b) => structuredClone(b)),
        coverage: [...state.coverage.values()].map((c) => structuredClone(c)),
        failures: new Map([...state.failures].map(([id, failure]) => [id, { ...failure }])),
      };
    },
    async addCoverage(coverage) {
      count('addCoverage');
      state.coverage.set(coverage.id, structuredClone(coverage));
    },
    async retire(batchIds, coverageIds) {
      count('retire');
      for (const id of batchIds) state.batches.delete(id);
      for (const id of coverageIds) state.coverage.delete(id);
    },
    async setFailure(tableId, failure) {
      count('setFailure');
      if (failure) state.failures.set(tableId, { ...failure });
      else state.failures.delete(tableId);
    },
    async writeTotals(tables, asOf) {
      count('writeTotals');
      state.totals = { tables: new Map(tables), asOf };
    },
    async acquire(holder, until) {
      if (state.lease && state.lease.until >= clock()) return false;
      state.lease = { holder, until };
      return true;
    },
    async release(holder) {
      if (state.lease?.holder === holder) state.lease = null;
    },
  };
  state.objects = {
    async put(key, body) {
      count('put');
      state.stored.set(key, Buffer.from(body));
    },
    async read(key, offset, length) {
      count('read slice');
      const body = state.stored.get(key);
      if (!body) throw Object.assign(new Error(`NoSuchKey ${key}`), { name: 'NoSuchKey' });
      return body.subarray(offset, offset + length);
    },
    async delete(keys) {
      count('delete');
      for (const key of keys) state.stored.delete(key);
    },
  };
  return state;
}
