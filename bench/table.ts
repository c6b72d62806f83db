/**
 * `npm run bench table`: a Delta table after a lot of traffic, on the local stand-ins (DynamoDB
 * Local, s3rver), written through the real commit path (appendToTable with the DynamoDB
 * coordinator, the S3 table storage and the writer's checkpoint hook) from synthetic envelopes.
 *   1. The DynamoDB read and write units the commit path consumes per event (ReturnConsumedCapacity
 *      on every call), for batches of 1,000, 100 and 10 envelopes, a warm writer.
 *   2. A table of BENCH_TABLE_COMMITS commits (default 10,000), four day partitions.
 *   3. Opening its latest snapshot from the last checkpoint, and by replaying every JSON commit; its
 *      Iceberg metadata written (iceberg/), and the objects opening the table through Iceberg reads
 *      (version hint, metadata file, manifest list, manifests) as a file-system catalog reader does.
 *   4. One maintenance run: files per day partition and bytes before and after compaction.
 * Prints JSON on stdout (the runner formats it).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommitDeps } from '#delta/operations/transaction.ts';
import { freePorts } from '#local/free-port.ts';
import { ensureBuckets, ensureTable } from '../local/provision.ts';
import { localCredentials, localRegion, startStandIns } from '../local/stand-ins.ts';

const commits = Number(process.env.BENCH_TABLE_COMMITS ?? 10_000);
// s3rver drops a connection now and then under load; the SDK call fails and the commit is retried.
// Anything else ends the bench with its error rather than leaving it waiting.
process.on('uncaughtException', (error: NodeJS.ErrnoException) => {
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') {
    process.stderr.write(`dropped connection (ignored): ${error.message}\n`);
    return;
  }
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exit(1);
});
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-table-'));
const [dynamodbPort, s3Port, sqsPort] = (await freePorts(3)) as [number, number, number];
const standIns = await startStandIns({ dataDir, dynamodbPort, s3Port, sqsPort });
Object.assign(process.env, {
  AWS_ENDPOINT_URL_DYNAMODB: standIns.endpoints.dynamodb,
  AWS_ENDPOINT_URL_S3: standIns.endpoints.s3,
  AWS_REGION: localRegion,
  AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
  TABLE_NAME: 'tributary',
  SECRETS_KEY: randomUUID() + randomUUID(),
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  // The bench's store points at the local S3 stand-in, as local mode allows.
  ALLOWED_STORE_ENDPOINTS: 'loopback',
});
await ensureTable(standIns.endpoints.dynamodb, 'tributary');
await ensureBuckets(standIns.endpoints.s3, ['bench-lake']);

// Imported once the environment names the stand-ins.
const { db } = await import('../shared/adapters/dynamo/table.ts');
const { commitRecords } = await import('../shared/adapters/dynamo/delta-log.ts');
const { secretBox } = await import('../shared/adapters/secret-box.ts');
const { tableLocation } = await import('../shared/adapters/s3/tenant-stores.ts');
const { connectStore } = await import('../shared/domain/tenants/store-access.ts');
const { decodeCheckpoint } = await import('#delta/parquet/checkpoint-reader.ts');
const { encodeCheckpoint } = await import('#delta/parquet/checkpoint-writer.ts');
const { rewriteFiles } = await import('#delta/parquet/compaction.ts');
const { writeParquet, maxRowsPerFile } = await import('#delta/parquet/parquet-files.ts');
const { checkpointDue, writeCheckpoint } = await import('#delta/operations/checkpoint.ts');
const { appendToTable } = await import('#delta/operations/append.ts');
const { conditionalArbiter } = await import('#delta/log-store/arbiter.ts');
const { writePartitionedFiles } = await import('#delta/operations/data-files.ts');
const { exactlyOncePerMessage, tributaryEngine } = await import('../shared/domain/datasets/exactly-once.ts');
const { maintainTable } = await import('#delta/operations/maintenance.ts');
const { openSnapshot, SnapshotCache } = await import('#delta/kernel/snapshot.ts');
const { envelopeSchema } = await import('../shared/domain/datasets/model.ts');
const { mirrorDeltaVersion } = await import('#iceberg/mirror.ts');
const { decodeManifest, decodeManifestList } = await import('#iceberg/avro.ts');
const { parseStats } = await import('#delta/kernel/log.ts');
const { tableSettings } = await import('../shared/domain/datasets/table-settings.ts');
const { envelopeColumns } = await import('../shared/domain/ingest/envelope.ts');

/** DynamoDB capacity as billed, from every call's ConsumedCapacity. */
const capacity = { read: 0, write: 0 };
db.middlewareStack.add(
  (next, context) => async (args) => {
    (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
    for (const item of (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as {
      ReadCapacityUnits?: number;
      WriteCapacityUnits?: number;
      CapacityUnits?: number;
    }[]) {
      const name = String(context.commandName);
      capacity.read += item.ReadCapacityUnits ?? 0;
      capacity.write += item.WriteCapacityUnits ?? 0;
      if (item.ReadCapacityUnits === undefined && item.WriteCapacityUnits === undefined && item.CapacityUnits) {
        if (/Get|Query|Scan/.test(name)) capacity.read += item.CapacityUnits;
        else capacity.write += item.CapacityUnits;
      }
    }
    return result;
  },
  { step: 'initialize', name: 'consumedCapacity' },
);

async function openTable(tableId: string) {
  const tenantId = randomUUID();
  const storeId = randomUUID();
  const at = new Date().toISOString();
  const store = {
    object_store_id: storeId,
    tenant_id: tenantId,
    name: 'bench',
    base_url: 's3://bench-lake',
    option_keys: ['endpoint'],
    options_sealed: await secretBox.seal(
      JSON.stringify({ endpoint: standIns.endpoints.s3 }),
      `object-store-options:${tenantId}:${storeId}`,
    ),
    created_at: at,
    updated_at: at,
  };
  const connection = await connectStore({ secrets: secretBox, getTenant: async () => null }, store, 'readWrite');
  return tableLocation(connection, `s3://bench-lake/datasets/${tableId}`);
}

interface Envelope {
  messageId: string;
  dt: string;
  ingestedAt: number;
  payload: string;
}

const payload = (i: number) =>
  Buffer.from(JSON.stringify({ event: 'pull_request', number: i, body: 'x'.repeat(900) })).toString('base64');

function encode(rows: Envelope[]) {
  return writeParquet(
    [...envelopeColumns],
    [
      rows.map((row) => row.messageId),
      rows.map((row) => BigInt(row.ingestedAt) * 1000n),
      rows.map(() => 'bench-source'),
      rows.map(() => 'bench-tenant'),
      rows.map(() => 'application/json'),
      rows.map((row) => BigInt(Buffer.byteLength(row.payload, 'base64'))),
      rows.map((row) => row.payload),
      rows.map(() => null),
    ],
  );
}

async function writerFor(tableId: string) {
  const storage = await openTable(tableId);
  const reader = { storage, decodeCheckpoint };
  const snapshots = new SnapshotCache();
  const commitDeps: CommitDeps = {
    storage,
    arbiter: conditionalArbiter(storage),
    records: commitRecords,
    snapshots: snapshots.source(reader),
    hooks: {
      // As the writer does after each committed version: a checkpoint when one is due.
      async onCompleted(entry, state) {
        if (checkpointDue(entry.version, state)) await writeCheckpoint(storage, encodeCheckpoint, state, Date.now());
      },
    },
    engine: tributaryEngine,
  };
  const append = (rows: Envelope[]) =>
    appendToTable(commitDeps, {
      tableId,
      metadata: { tableId, name: 'bench', schema: envelopeSchema, partitionColumns: ['dt'], createdTime: Date.now() },
      rows,
      deduplication: exactlyOncePerMessage(commitRecords, tableId, (row: Envelope) => row),
      attempt: 1,
      writeFiles: (pending) =>
        writePartitionedFiles(storage, pending, { partitionOf: (row) => ({ dt: row.dt }), encode, maxRowsPerFile }),
    });
  return { storage, reader, append, commitDeps };
}

const batch = (size: number, dt: string, offset = 0): Envelope[] =>
  Array.from({ length: size }, (_, i) => ({
    messageId: randomUUID(),
    dt,
    ingestedAt: Date.now(),
    payload: payload(offset + i),
  }));

// 1. DynamoDB units per event, warm writer (the first commit of each table is not counted).
const units: { batch: number; commits: number; readPerEvent: number; writePerEvent: number }[] = [];
for (const size of [1000, 100, 10]) {
  const { append } = await writerFor(randomUUID());
  await append(batch(size, '2026-11-20'));
  const rounds = size === 1000 ? 10 : 30;
  capacity.read = 0;
  capacity.write = 0;
  for (let i = 0; i < rounds; i++) await append(batch(size, '2026-11-20'));
  units.push({
    batch: size,
    commits: rounds,
    readPerEvent: capacity.read / (rounds * size),
    writePerEvent: capacity.write / (rounds * size),
  });
}

// 2. A table of many commits: 5 envelopes each, four day partitions.
const tableId = randomUUID();
const table = await writerFor(tableId);
const days = ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'];
const buildStarted = performance.now();
// Four writers at once, as concurrent batch writers commit to one table: they race for versions.
// A failed commit is retried with the same envelopes, as a redelivered batch would be.
let next = 0;
let retried = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (let i = next++; i < commits; i = next++) {
      const rows = batch(5, days[Math.floor((i * days.length) / commits)] as string, i);
      for (let attempt = 1; ; attempt++) {
        try {
          await table.append(rows);
          break;
        } catch (error) {
          if (attempt >= 5) throw error;
          retried++;
        }
      }
      if (i % 1000 === 999)
        process.stderr.write(`built ${i + 1} commits in ${((performance.now() - buildStarted) / 1000).toFixed(0)} s\n`);
    }
  }),
);
const buildSeconds = (performance.now() - buildStarted) / 1000;

// 3. Opening the latest snapshot: from the last checkpoint, and by replaying every JSON commit.
const withStarted = performance.now();
const withCheckpoint = await openSnapshot(table.reader);
const withMs = performance.now() - withStarted;
// The first open in a process also compiles the reader's code, as a fresh function instance does;
// opening again shows what a warm instance pays.
const againMs: number[] = [];
for (let i = 0; i < 5; i++) {
  const started = performance.now();
  await openSnapshot(table.reader);
  againMs.push(performance.now() - started);
}
againMs.sort((a, b) => a - b);
const noCheckpoints = {
  storage: {
    ...table.storage,
    getIfExists: (key: string) =>
      key.endsWith('_last_checkpoint') || key.endsWith('.checkpoint.parquet')
        ? Promise.resolve(null)
        : table.storage.getIfExists(key),
    list: async () => [],
  },
  decodeCheckpoint,
};
const withoutStarted = performance.now();
const withoutCheckpoint = await openSnapshot(noCheckpoints);
const withoutMs = performance.now() - withoutStarted;
const sameFiles =
  withCheckpoint.state.files.size === withoutCheckpoint.state.files.size &&
  [...withCheckpoint.state.files.keys()].every((key) => withoutCheckpoint.state.files.has(key));

// The same snapshot through Iceberg: its metadata written, then opened as a reader of a file-system
// catalog opens it (version-hint.text, the metadata file, the manifest list, each manifest), counting
// the objects read; its data files must be the Delta snapshot's live files.
const location = `s3://bench-lake/datasets/${tableId}`;
const mirrorStarted = performance.now();
const mirrored = await mirrorDeltaVersion(table.storage, {
  root: location,
  state: withCheckpoint.state,
  now: Date.now(),
});
const mirrorMs = performance.now() - mirrorStarted;
if (mirrored.status !== 'Current') throw new Error(`Iceberg metadata not written: ${mirrored.reason}`);
const icebergOpenStarted = performance.now();
let icebergObjectsRead = 0;
const readObject = async (key: string) => {
  icebergObjectsRead++;
  const bytes = await table.storage.getIfExists(key);
  if (!bytes) throw new Error(`Iceberg object ${key} missing`);
  return bytes;
};
const keyOf = (at: string) => at.slice(location.length + 1);
const hint = (await readObject('metadata/version-hint.text')).toString('utf8');
const icebergMetadata = JSON.parse((await readObject(`metadata/v${hint}.metadata.json`)).toString('utf8'));
const icebergSnapshot = icebergMetadata.snapshots.find(
  (snapshot: { 'snapshot-id': number }) => snapshot['snapshot-id'] === icebergMetadata['current-snapshot-id'],
);
const manifests = await decodeManifestList(await readObject(keyOf(icebergSnapshot['manifest-list'])));
const icebergFiles = (
  await Promise.all(manifests.map(async (manifest) => decodeManifest(await readObject(keyOf(manifest.manifest_path)))))
)
  .flat()
  .map((entry) => keyOf(entry.data_file.file_path));
const icebergOpenMs = performance.now() - icebergOpenStarted;
const icebergSameFiles =
  icebergFiles.length === withCheckpoint.state.files.size &&
  icebergFiles.every((key) => withCheckpoint.state.files.has(key));

// 4. One maintenance run at the default target (128 MiB).
const perDay = (files: Iterable<{ partitionValues: Record<string, string | null>; size: number }>) => {
  const summary: Record<string, { files: number; bytes: number }> = {};
  for (const file of files) {
    const day = file.partitionValues.dt ?? '';
    summary[day] ??= { files: 0, bytes: 0 };
    (summary[day] as { files: number }).files++;
    (summary[day] as { bytes: number }).bytes += file.size;
  }
  return summary;
};
const before = perDay(withCheckpoint.state.files.values());
const memoryBefore = process.memoryUsage().rss;
const maintenanceStarted = performance.now();
const report = await maintainTable(
  {
    commit: { ...table.commitDeps, now: () => new Date() },
    reader: table.reader,
    rewrite: (sources, targetSize, newPath) => rewriteFiles(table.storage, sources, targetSize, newPath),
    now: () => new Date(),
  },
  tableId,
  (state) => ({
    minFiles: tableSettings(state.metadata?.configuration ?? {}).optimizeMinFiles,
    expiry: null,
  }),
);
const maintenanceSeconds = (performance.now() - maintenanceStarted) / 1000;
const after = await openSnapshot(table.reader);
const rowsAfter = [...after.state.files.values()].reduce((sum, file) => sum + parseStats(file.stats).numRecords, 0);

process.stdout.write(
  `${JSON.stringify({
    units,
    build: { commits, rowsPerCommit: 5, seconds: buildSeconds, retried },
    open: {
      version: withCheckpoint.state.version,
      withCheckpoint: {
        objectsRead: withCheckpoint.objectsRead,
        ms: withMs,
        againMedianMs: againMs[2],
        checkpoint: withCheckpoint.checkpoint,
      },
      withoutCheckpoint: { objectsRead: withoutCheckpoint.objectsRead, ms: withoutMs },
      sameFiles,
      iceberg: {
        objectsRead: icebergObjectsRead,
        ms: icebergOpenMs,
        manifests: manifests.length,
        writeMs: mirrorMs,
        sameFiles: icebergSameFiles,
      },
    },
    compaction: {
      targetBytes: 128 * 1024 * 1024,
      before,
      after: perDay(after.state.files.values()),
      report,
      seconds: maintenanceSeconds,
      rssGrowthBytes: process.memoryUsage().rss - memoryBefore,
      rows: { expected: commits * 5, after: rowsAfter },
      openAfter: { objectsRead: after.objectsRead },
    },
  })}\n`,
);
await standIns.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
