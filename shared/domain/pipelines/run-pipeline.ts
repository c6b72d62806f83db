import { randomUUID } from 'node:crypto';
import { type IcebergSyncDeps, syncIcebergAfterCommit } from '../datasets/iceberg.ts';
import { askForMaintenance, type MaintenanceRequests } from '../datasets/maintenance-due.ts';
import { type DataSet, type DeltaSchema, newDataSet } from '../datasets/model.ts';
import type { CommittedVersion, TableFile, TableSnapshot } from '../datasets/table.ts';
import type { RejectionSample } from '../jobs/model.ts';
import {
  JobCancelled,
  JobFailure,
  type JobOf,
  type JobOutcome,
  type RunControl,
  readJobField,
} from '../jobs/run-job.ts';
import { type Cell, compileQuery } from './compile-query.ts';
import type { ColumnDefinition, QuerySpecification } from './definition.ts';
import type { DeployedVersion, FirstRead, Pipeline, PipelineProgress } from './model.ts';
import { type DayRange, type PipelineJobPayload, pipelineJobSource } from './pipeline-runs.ts';
import type { PipelineRepository } from './ports.ts';
import type { QueryJobPayload, QueryScan } from './queries.ts';

/** An envelope as read back from a webhook data set's Parquet file. */
export interface StoredEnvelope {
  message_id: string;
  /** The Content-Type header as sent (format `auto` decodes by it; absent is none). */
  content_type: string | null;
  payload: Uint8Array;
  /** The request headers the envelope kept (lowercase names); null or absent for rows stored before they were kept. */
  headers?: Readonly<Record<string, string>> | null;
}

export interface DecodedRow {
  messageId: string;
  dt: string;
  cells: Cell[];
}

/** A live file of a webhook data set's table, and the envelopes it holds. */
export interface EnvelopeFile extends TableFile {
  /** Its envelopes, less the rows another engine deleted with a deletion vector. */
  readEnvelopes(): Promise<StoredEnvelope[]>;
}

export interface SourceReader {
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  /**
   * The live files of the table's latest snapshot (its last checkpoint and the commits after it),
   * or of the one at `version`; none before its first write.
   */
  envelopeFiles(dataSet: DataSet, version?: number): Promise<EnvelopeFile[]>;
  /**
   * The commits after `version`, oldest first, at most `maxCommits`, each with the files it added
   * with new rows: not those it only rearranged (a compaction), nor a file another engine added back
   * with a deletion vector (its other rows were read before). Throws when the log no longer has them.
   */
  commitsAfter(
    dataSet: DataSet,
    version: number,
    maxCommits: number,
  ): Promise<{ version: number; added: EnvelopeFile[]; removed: EnvelopeFile[] }[]>;
}

export interface PipelineRunDeps
  extends SourceReader,
    MaintenanceRequests,
    Pick<PipelineRepository, 'getPipeline' | 'getDeployedVersion' | 'saveProgress'> {
  /** The output table's latest snapshot: its version, and how far each pipeline's rows got. */
  snapshotOf(dataSet: DataSet): Promise<TableSnapshot>;
  /** The output table's Iceberg metadata, kept in step with the versions a run commits. */
  iceberg: IcebergSyncDeps;
  createDataSet(dataSet: DataSet): Promise<void>;
  /**
   * Appends rows to the output table with the run's txn: exactly once, even when a run that
   * committed is repeated (its txn is already there) or a stale runner commits alongside.
   */
  appendRows(
    output: DataSet,
    columns: ColumnDefinition[],
    rows: DecodedRow[],
    attempt: number,
    txn: PipelineTxn,
  ): Promise<{ version: number | null; written: number; committed: CommittedVersion[] }>;
  /**
   * Replaces the output's rows of `days` with `rows`, in one commit (removes of the days' files,
   * adds of the new ones) that records the pipeline's txn at `txn.version`, and fails if the
   * table's txn is not at `txn.expected` (a run committed meanwhile).
   */
  replaceRows(
    output: DataSet,
    columns: ColumnDefinition[],
    rows: DecodedRow[],
    days: ReadonlySet<string>,
    attempt: number,
    txn: { appId: string; version: number; expected: number },
  ): Promise<{
    version: number | null;
    written: number;
    filesRemoved: number;
    rowsRemoved: number;
    committed: CommittedVersion[];
  }>;
}

/** Rows a single run processes at most; the rest waits for the next run (the checkpoint says where). */
export const maxRowsPerRun = 500_000;
/** Source commits a single run reads at most. */
export const maxCommitsPerRun = 10_000;

/** A pipeline's progress as recorded in its output table: appId names the pipeline and its source. */
export interface PipelineTxn {
  appId: string;
  /** The last source version whose rows the commit holds. */
  version: number;
  /** The source version the run started after. */
  after: number;
  /** The output table's version the run started from. */
  readVersion: number;
}

export const pipelineAppId = (pipelineId: string, sourceDataSetId: string) =>
  `tributary-pipeline-${pipelineId}-${sourceDataSetId}`;
const maxSamples = 10;

export function outputSchema(columns: ColumnDefinition[]): DeltaSchema {
  return {
    type: 'struct',
    fields: [
      { name: 'dt', type: 'string', nullable: false, metadata: {} },
      ...columns.map((column) => ({ name: column.name, type: column.type, nullable: true, metadata: {} })),
    ],
  };
}

/**
 * Decodes envelopes into rows of the declared columns, counting every row it reads: each is
 * output, filtered out by `where`, or rejected (sampled with the reason). An envelope holds one
 * row, or one per non-empty line in NDJSON: rows_in = rows out + filtered + rejected.
 */
export class Decoder {
  readonly rows: DecodedRow[] = [];
  rowsIn = 0;
  rejected = 0;
  filtered = 0;
  readonly samples: RejectionSample[] = [];
  /** Set when a row was left unread because `maxRows` rows were out. */
  truncated = false;
  private readonly decode: ReturnType<typeof compileQuery>;

  constructor(
    spec: Pick<QuerySpecification, 'decode' | 'columns' | 'where'>,
    private readonly maxRows = Number.POSITIVE_INFINITY,
  ) {
    this.decode = compileQuery(spec);
  }

  add(envelope: StoredEnvelope, dt: string): void {
    for (const outcome of this.decode(envelope.payload, envelope.content_type ?? null, envelope.headers)) {
      if (this.rows.length >= this.maxRows) {
        this.truncated = true;
        return;
      }
      this.rowsIn++;
      if ('cells' in outcome) this.rows.push({ messageId: envelope.message_id, dt, cells: outcome.cells });
      else if ('filtered' in outcome) this.filtered++;
      else {
        this.rejected++;
        if (this.samples.length < maxSamples)
          this.samples.push({ message_id: envelope.message_id, reason: outcome.rejected });
      }
    }
  }

  /** The counts a job records. */
  counts(rowsOut: number) {
    return {
      rows_in: this.rowsIn,
      rows_out: rowsOut,
      rows_rejected: this.rejected,
      rows_filtered: this.filtered,
      rejection_samples: this.samples,
    };
  }
}

/**
 * Run a pipeline job.
 * Input: the job (its pipeline and deployed version). Output: rows in, out and rejected.
 *  1. Load the deployed snapshot the job was started with (later edits do not matter). A run that
 *     new data started is cancelled if the pipeline was disabled meanwhile.
 *  2. Read the source's commits after the pipeline's checkpoint, oldest first, up to a bound.
 *  3. Decode each payload as JSON, extract the columns by path with their types; reject what does not fit.
 *  4. Unless cancelled, commit the rows to the output table (created on the first run, partitioned
 *     by the source's dt) together with the run's txn, ask for the output's maintenance when the new
 *     version makes it due, then advance the checkpoint.
 * No new source data means no commit. A crash between commit and checkpoint is harmless: the output
 * table's txn says how far the rows got, and the next run starts after it. Files that a compaction
 * only rearranged (dataChange false) are not read again.
 */
export async function runPipeline(
  deps: PipelineRunDeps,
  job: JobOf<PipelineJobPayload | null>,
  control: RunControl,
  attempt = 1,
): Promise<JobOutcome> {
  const { pipeline_id: pipelineId, pipeline_version: version } = readJobField(pipelineJobSource, job, 'source');
  const payload = job.payload;
  let pipeline = await deps.getPipeline(pipelineId);
  if (!pipeline) throw new JobFailure('The pipeline was deleted');
  if (payload?.trigger === 'on_new_data' && pipeline.status !== 'Active') throw new JobCancelled();
  const snapshot = await deps.getDeployedVersion(pipelineId, version);
  if (!snapshot) throw new JobFailure(`Deployed version ${version} of the pipeline does not exist`);
  const definition = snapshot.definition;
  const source = await deps.getDataSet(definition.source.data_set_id);
  if (!source || source.tenant_id !== pipeline.tenant_id) throw new JobFailure('The source data set no longer exists');

  const existing = await existingOutput(deps, pipeline, snapshot);
  if (!existing && pipeline.output_data_set_id !== null) {
    // Only the deployed version starts a new output: a job of an older one, run late, would start one of
    // its own from the source's start, and the next job of the deployed version another.
    if (version !== pipeline.deployed_version)
      throw new JobFailure(
        `Version ${version} of the pipeline is no longer deployed and its output is not the one the pipeline writes now; trigger a run of the deployed version`,
      );
    pipeline = await startNewOutput(deps, pipeline);
  }
  const appId = pipelineAppId(pipelineId, source.data_set_id);
  const outputState = existing?.storage_location ? await deps.snapshotOf(existing) : null;
  const recorded = outputState?.progress.get(appId) ?? -1;
  const checkpoint = pipeline.checkpoint?.data_set_id === source.data_set_id ? pipeline.checkpoint.version : -1;
  let after = Math.max(checkpoint, recorded);
  if (payload?.range) {
    const read = { pipeline, snapshot, source, existing, appId, recorded, after };
    return rerunDays(deps, read, payload.range, control, attempt);
  }
  if (after < 0 && source.storage_location) {
    const first = await readFirstSnapshot(
      deps,
      { pipeline, snapshot, source, existing, appId, outputState },
      control,
      attempt,
    );
    if ('outcome' in first) return first.outcome;
    after = first.version;
  }
  const commits = source.storage_location ? await deps.commitsAfter(source, after, maxCommitsPerRun) : [];
  const decoder = new Decoder(definition);
  let lastVersion = after;
  for (const commit of commits) {
    const seen = await rewrittenRows(commit);
    for (const file of commit.added) {
      const dt = file.partitionValues.dt ?? '';
      for (const envelope of await file.readEnvelopes()) if (!seen.has(envelope.message_id)) decoder.add(envelope, dt);
    }
    lastVersion = commit.version;
    await control.throwIfCancelled();
    if (decoder.rowsIn >= maxRowsPerRun) break;
  }
  const outcome = {
    ...decoder.counts(0),
    source: {
      pipeline_id: pipelineId,
      pipeline_version: version,
      data_set_id: source.data_set_id,
      from_version: after + 1,
      to_version: lastVersion,
    },
  };
  if (lastVersion === after) {
    if (existing && after > checkpoint) await saveCheckpoint(deps, pipeline, existing, source, after);
    return outcome;
  }

  const output = existing ?? (await createOutput(deps, pipeline, snapshot));
  await control.beginCommit();
  const written =
    decoder.rows.length > 0
      ? await deps.appendRows(output, definition.columns, decoder.rows, attempt, {
          appId,
          version: lastVersion,
          after,
          readVersion: outputState?.version ?? -1,
        })
      : { written: 0, committed: [] };
  await askForMaintenance(deps, output, written.committed, Date.now());
  await syncIcebergAfterCommit(deps.iceberg, output, written.committed);
  await saveCheckpoint(deps, pipeline, output, source, lastVersion);
  return { ...outcome, rows_out: written.written };
}

/** The order a first read takes a snapshot's files in: by day, then by path (the same at every run). */
const readingOrder = (a: EnvelopeFile, b: EnvelopeFile) =>
  (a.partitionValues.dt ?? '').localeCompare(b.partitionValues.dt ?? '') ||
  (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * How far the first read went: the output table's txn (`<appId>@<version>`, committed with the rows) or
 * the pipeline's record (saved after the commit, and the only one of a read that found no rows), the
 * further of the two; null before it began.
 */
function firstReadOf(
  pipeline: PipelineProgress,
  sourceId: string,
  appId: string,
  outputState: TableSnapshot | null,
): FirstRead | null {
  const saved = pipeline.checkpoint?.data_set_id === sourceId ? (pipeline.checkpoint.first_read ?? null) : null;
  if (saved) {
    // The snapshot is chosen (and recorded) before anything of it is committed: a txn names it.
    const committed = outputState?.progress.get(`${appId}@${saved.version}`) ?? -1;
    return committed > saved.files ? { version: saved.version, files: committed } : saved;
  }
  // No record of it (the pipeline read another source since, and reads this one again): the output's txns say.
  let found: FirstRead | null = null;
  for (const [id, files] of outputState?.progress ?? []) {
    if (!id.startsWith(`${appId}@`)) continue;
    const version = Number(id.slice(appId.length + 1));
    if (Number.isSafeInteger(version) && (!found || version > found.version)) found = { version, files };
  }
  return found;
}

/**
 * A pipeline's first read of its source: the live files of one snapshot of it (its latest when the
 * read begins), not its commits from version 0. Maintenance deletes what early commits added (files a
 * compaction rewrote go after the table's deleted-file retention, 7 days; commits after its log
 * retention, 30), so a source older than that could not be read from its start; a snapshot holds
 * each of its rows once.
 *  1. The files are read in a fixed order, a run's worth at a time (maxRowsPerRun), the rows committed
 *     with a txn of their own, `<appId>@<snapshot version>` = files read: a run that fails after its
 *     commit does not write them again, and two runs cannot both commit the same files.
 *  2. The snapshot is chosen once and recorded (checkpoint version -1 with first_read) before any
 *     of it is read; the pipeline records how far it read after each commit, and a part of the
 *     snapshot whose rows were all filtered out or rejected commits nothing and is recorded all the
 *     same. The output's txn, committed with the rows, is the further of the two after a crash.
 *  3. Once every file is read, the runs go on from that version's commits, as from any checkpoint.
 * The snapshot's files must stay until the read ends: a week, at a run's worth per run.
 */
async function readFirstSnapshot(
  deps: PipelineRunDeps,
  start: Omit<RunStart, 'recorded' | 'after'> & { outputState: TableSnapshot | null },
  control: RunControl,
  attempt: number,
): Promise<{ outcome: JobOutcome } | { version: number }> {
  const { snapshot, source, appId, outputState } = start;
  let { pipeline } = start;
  let position = firstReadOf(pipeline, source.data_set_id, appId, outputState);
  if (!position) {
    position = { version: (await deps.snapshotOf(source)).version, files: 0 };
    if (position.version < 0) return { version: -1 };
    // Chosen once, and recorded before anything is read: a run started beside this one (a runner whose
    // lease lapsed) reads the same snapshot under the same txn, or fails here.
    const chosen = { data_set_id: source.data_set_id, version: -1, first_read: position };
    await deps.saveProgress(
      pipeline.pipeline_id,
      pipeline,
      { output_data_set_id: pipeline.output_data_set_id, checkpoint: chosen },
      new Date(),
    );
    pipeline = { ...pipeline, checkpoint: chosen };
  }
  const files = (await deps.envelopeFiles(source, position.version)).sort(readingOrder);
  if (position.files >= files.length) return { version: position.version };
  const decoder = new Decoder(snapshot.definition);
  let read = position.files;
  while (read < files.length && decoder.rowsIn < maxRowsPerRun) {
    const file = files[read] as EnvelopeFile;
    for (const envelope of await file.readEnvelopes()) decoder.add(envelope, file.partitionValues.dt ?? '');
    read++;
    await control.throwIfCancelled();
  }
  const output = start.existing ?? (await createOutput(deps, pipeline, snapshot));
  await control.beginCommit();
  const written =
    decoder.rows.length > 0
      ? await deps.appendRows(output, snapshot.definition.columns, decoder.rows, attempt, {
          appId: `${appId}@${position.version}`,
          version: read,
          after: position.files,
          readVersion: outputState?.version ?? -1,
        })
      : { written: 0, committed: [] };
  await askForMaintenance(deps, output, written.committed, Date.now());
  await syncIcebergAfterCommit(deps.iceberg, output, written.committed);
  const checkpoint =
    read === files.length
      ? { data_set_id: source.data_set_id, version: position.version }
      : { data_set_id: source.data_set_id, version: -1, first_read: { version: position.version, files: read } };
  await deps.saveProgress(
    pipeline.pipeline_id,
    pipeline,
    { output_data_set_id: output.data_set_id, checkpoint },
    new Date(),
  );
  return {
    outcome: {
      ...decoder.counts(written.written),
      source: {
        pipeline_id: pipeline.pipeline_id,
        pipeline_version: snapshot.version,
        data_set_id: source.data_set_id,
        from_version: 0,
        to_version: position.version,
        snapshot_files_read: read,
        snapshot_files: files.length,
      },
    },
  };
}

/**
 * The message ids of the rows a commit removed while adding others: another engine's copy-on-write
 * DELETE, UPDATE or MERGE writes a file's other rows again, rows the pipeline read before (a MERGE's
 * new rows are in no removed file, and are read).
 */
async function rewrittenRows(commit: { added: EnvelopeFile[]; removed: EnvelopeFile[] }): Promise<Set<string>> {
  const ids = new Set<string>();
  if (commit.added.length === 0) return ids;
  for (const file of commit.removed) for (const envelope of await file.readEnvelopes()) ids.add(envelope.message_id);
  return ids;
}

/** What a run found before it reads rows: the pipeline, its deployed version, source and output, and its progress. */
interface RunStart {
  pipeline: Pipeline & PipelineProgress;
  snapshot: DeployedVersion;
  source: DataSet;
  existing: DataSet | null;
  appId: string;
  /** The source version the output table's txn records (-1: none). */
  recorded: number;
  /** The source version the pipeline's runs have read up to. */
  after: number;
}

/**
 * Re-run a pipeline over a range of days.
 * Input: the run's start, the days. Output: rows in, out, rejected and filtered, and what was replaced.
 *  1. Read the source as the pipeline's runs have read it (its snapshot at the version they reached):
 *     the live files of those days, without rows a deletion vector removed. Rows committed since are
 *     left to the next run, so no row is written twice, and the txn the runs keep is not moved.
 *  2. Decode them as a run does; more than maxRowsPerRun rows fail the job before anything is written.
 *  3. Unless cancelled, replace the output's rows of those days in one commit (removes of every file of
 *     those days, adds of the new ones), carrying the txn as it is; a run of the pipeline committing
 *     meanwhile fails it. Running it again replaces the same days again: the same rows, once.
 *  4. Ask for the output's maintenance when the new version makes it due.
 */
async function rerunDays(
  deps: PipelineRunDeps,
  start: RunStart,
  range: DayRange,
  control: RunControl,
  attempt: number,
): Promise<JobOutcome> {
  const { pipeline, snapshot, source, appId, after } = start;
  if (after < 0)
    throw new JobFailure(
      'The pipeline has not read its source yet: a re-run rebuilds days from what its runs have read; trigger a run first',
    );
  const inRange = (day: string | null | undefined) => typeof day === 'string' && day >= range.from && day <= range.to;
  const files = (await deps.envelopeFiles(source, after))
    .filter((file) => inRange(file.partitionValues.dt))
    .sort((a, b) => a.modificationTime - b.modificationTime || (a.path < b.path ? -1 : 1));
  // Only the days the source still holds are rebuilt: a day its retention removed keeps the output's rows.
  const days = new Set(files.map((file) => file.partitionValues.dt as string));
  const decoder = new Decoder(snapshot.definition, maxRowsPerRun);
  for (const file of files) {
    for (const envelope of await file.readEnvelopes()) decoder.add(envelope, file.partitionValues.dt ?? '');
    if (decoder.truncated)
      throw new JobFailure(
        `The days ${range.from} to ${range.to} hold more than ${maxRowsPerRun} rows, more than one commit takes; re-run fewer days at a time`,
      );
    await control.throwIfCancelled();
  }
  const output = start.existing ?? (await createOutput(deps, pipeline, snapshot));
  await control.beginCommit();
  const replaced = await deps.replaceRows(output, snapshot.definition.columns, decoder.rows, days, attempt, {
    appId,
    version: after,
    expected: start.recorded,
  });
  await askForMaintenance(deps, output, replaced.committed, Date.now());
  await syncIcebergAfterCommit(deps.iceberg, output, replaced.committed);
  // The output's id for the next run (a new output), and the checkpoint where it already was.
  await saveCheckpoint(deps, pipeline, output, source, after);
  return {
    ...decoder.counts(replaced.written),
    source: {
      pipeline_id: pipeline.pipeline_id,
      pipeline_version: snapshot.version,
      data_set_id: source.data_set_id,
      range,
      source_version: after,
      output_version: replaced.version,
      files_replaced: replaced.filesRemoved,
      rows_replaced: replaced.rowsRemoved,
    },
  };
}

async function saveCheckpoint(
  deps: PipelineRunDeps,
  pipeline: Pipeline & PipelineProgress,
  output: DataSet,
  source: DataSet,
  version: number,
): Promise<void> {
  await deps.saveProgress(
    pipeline.pipeline_id,
    pipeline,
    { output_data_set_id: output.data_set_id, checkpoint: { data_set_id: source.data_set_id, version } },
    new Date(),
  );
}

/**
 * The pipeline's output table: the one it already writes to, or none yet (the first run, or the
 * deployed definition names a different output). Same name but different columns is an error the
 * tenant must resolve (a Delta table keeps one schema).
 */
async function existingOutput(
  deps: PipelineRunDeps,
  pipeline: Pipeline & PipelineProgress,
  snapshot: DeployedVersion,
): Promise<DataSet | null> {
  const schema = outputSchema(snapshot.definition.columns);
  const existing = pipeline.output_data_set_id ? await deps.getDataSet(pipeline.output_data_set_id) : null;
  if (!existing || existing.name !== snapshot.definition.output.name) return null;
  const same =
    JSON.stringify(existing.schema_json.fields.map((f) => [f.name, f.type])) ===
    JSON.stringify(schema.fields.map((f) => [f.name, f.type]));
  if (!same)
    throw new JobFailure(
      `The columns of version ${snapshot.version} differ from those of output "${existing.name}"; give the output a new name`,
    );
  return existing;
}

/**
 * A deployed version that writes another output (a new name, after a change of columns) or an output
 * that was deleted: the new one is written from the source's start, as a first run's (its checkpoint
 * forgotten first), not from where the old one had got: it would lack every earlier row.
 */
async function startNewOutput(
  deps: PipelineRunDeps,
  pipeline: Pipeline & PipelineProgress,
): Promise<Pipeline & PipelineProgress> {
  if (pipeline.checkpoint === null) return pipeline;
  await deps.saveProgress(
    pipeline.pipeline_id,
    pipeline,
    { output_data_set_id: pipeline.output_data_set_id, checkpoint: null },
    new Date(),
  );
  return { ...pipeline, checkpoint: null };
}

async function createOutput(
  deps: PipelineRunDeps,
  pipeline: Pipeline & PipelineProgress,
  snapshot: DeployedVersion,
): Promise<DataSet> {
  // A pipeline deleted while its first run read makes no output: nothing would write to it again. Nor does a run
  // whose pipeline another run gave an output meanwhile (naming this one would fail, and leave it unnamed).
  const current = await deps.getPipeline(pipeline.pipeline_id);
  if (!current) throw new JobFailure('The pipeline was deleted during the run');
  if (current.output_data_set_id !== pipeline.output_data_set_id)
    throw new Error('The pipeline progressed meanwhile (another run named its output)');
  const schema = outputSchema(snapshot.definition.columns);
  const tenantSlug = (await deps.getDataSet(snapshot.definition.source.data_set_id))?.tenant_slug ?? '';
  const created = newDataSet(
    {
      data_set_id: randomUUID(),
      tenant_id: pipeline.tenant_id,
      tenant_slug: tenantSlug,
      name: snapshot.definition.output.name,
      origin: { type: 'Pipeline', pipeline_id: pipeline.pipeline_id, pipeline_version: snapshot.version },
      schema_json: schema,
    },
    new Date().toISOString(),
  );
  await deps.createDataSet(created);
  // Named on the pipeline before anything is committed to it: a run that fails between its commit and its checkpoint
  // is followed by one that finds this output (and the commit's progress in it), not by a second output of the rows.
  await deps.saveProgress(
    pipeline.pipeline_id,
    pipeline,
    { output_data_set_id: created.data_set_id, checkpoint: pipeline.checkpoint },
    new Date(),
  );
  // The run's own view of its pipeline follows: what it saves next expects this output (two runs that each
  // create one cannot both name theirs).
  pipeline.output_data_set_id = created.data_set_id;
  return created;
}

/**
 * At most this much JSON is kept as a query's result: every page of the result reads and parses it whole, so it stays
 * well within a function's memory and time however large the rows (10,000 rows of 200 columns could be gigabytes).
 */
export const maxQueryResultBytes = 16 * 1024 * 1024;

/**
 * At most this much of a data set's Parquet a query reads (its files' sizes as the table's log gives them)…
 */
export const maxQueryScanBytes = 4 * 1024 ** 3;
/**
 * …and for at most this long. A query's `limit` bounds the rows it keeps, not what it reads: a `where` that matches
 * nothing reads the whole data set, and the runner stops at 15 minutes (Lambda's limit), so a query past these bounds
 * ends with the rows found so far (`truncated_by: "scan"`, `scanned` saying how much it read) rather than as a runner
 * that stopped responding. The time left is for storing the result and the job's end.
 */
export const queryScanBudgetMs = 10 * 60_000;

/**
 * The rows of a query: the same decoding over the data set's current snapshot, oldest file first, up to `limit` rows
 * and `maxQueryResultBytes` of JSON, reading at most `maxQueryScanBytes` of files for at most `queryScanBudgetMs`;
 * the result says which one stopped it (`truncated_by`) and how much it read (`scanned`). The rows decoded past the
 * size are not counted in: rows_in = rows_out + rows_rejected + rows_filtered.
 */
export async function runQuery(
  deps: SourceReader & { now?: () => number },
  job: JobOf<QueryJobPayload>,
  control: RunControl,
): Promise<JobOutcome & { result: QueryResult }> {
  const now = deps.now ?? Date.now;
  const started = now();
  const { query, limit, from, to } = job.payload;
  // The days asked for (dt, inclusive); a file of no day is read only when no day is asked for.
  const inDays = (dt: string | null | undefined) =>
    (from === undefined && to === undefined) ||
    (typeof dt === 'string' && (from === undefined || dt >= from) && (to === undefined || dt <= to));
  const source = await deps.getDataSet(query.source.data_set_id);
  if (!source || source.tenant_id !== job.tenant_id) throw new JobFailure('The data set no longer exists');
  const decoder = new Decoder(query, limit);
  const files = (source.storage_location ? await deps.envelopeFiles(source) : [])
    .filter((file) => inDays(file.partitionValues.dt))
    .sort((a, b) => a.modificationTime - b.modificationTime || (a.path < b.path ? -1 : 1));
  const scanned: QueryScan = {
    files: 0,
    files_total: files.length,
    bytes: 0,
    bytes_total: files.reduce((sum, file) => sum + file.size, 0),
  };
  const columns = [
    { name: 'dt', type: 'string' },
    ...query.columns.map((column) => ({ name: column.name, type: column.type })),
  ];
  const rows: QueryResult['rows'] = [];
  let bytes = Buffer.byteLength(
    JSON.stringify({ columns, rows: [], truncated: true, truncated_by: 'limit', scanned: { ...scanned } }),
  );
  let truncatedBy: QueryResult['truncated_by'] = null;
  outer: for (const file of files) {
    // The first file is read whatever its size: a query reads something.
    const overBytes = scanned.files > 0 && scanned.bytes + file.size > maxQueryScanBytes;
    if (overBytes || now() - started >= queryScanBudgetMs) {
      truncatedBy = 'scan';
      break;
    }
    scanned.files++;
    scanned.bytes += file.size;
    for (const envelope of await file.readEnvelopes()) {
      decoder.add(envelope, file.partitionValues.dt ?? '');
      for (const decoded of decoder.rows.slice(rows.length)) {
        const row = [decoded.dt, ...decoded.cells.map((cell, i) => jsonCell(cell, query.columns[i]?.type))];
        const size = Buffer.byteLength(JSON.stringify(row)) + 1;
        if (bytes + size > maxQueryResultBytes) {
          truncatedBy = 'size';
          break outer;
        }
        rows.push(row);
        bytes += size;
      }
      if (decoder.truncated) {
        truncatedBy = 'limit';
        break outer;
      }
    }
    await control.throwIfCancelled();
  }
  const counts = decoder.counts(rows.length);
  const result: QueryResult = { columns, rows, truncated: truncatedBy !== null, truncated_by: truncatedBy, scanned };
  return { ...counts, rows_in: counts.rows_in - (decoder.rows.length - rows.length), result };
}

export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: (string | number | boolean | null)[][];
  truncated: boolean;
  truncated_by: 'limit' | 'size' | 'scan' | null;
  scanned: QueryScan;
}

/** JSON has no 64-bit integers: longs beyond 2^53 travel as strings; timestamps as ISO text with microseconds. */
function jsonCell(cell: Cell, type: string | undefined): string | number | boolean | null {
  if (typeof cell !== 'bigint') return cell;
  if (type === 'timestamp') {
    const micros = ((cell % 1_000_000n) + 1_000_000n) % 1_000_000n;
    const seconds = (cell - micros) / 1_000_000n;
    return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
  }
  return cell <= BigInt(Number.MAX_SAFE_INTEGER) && cell >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(cell)
    : cell.toString();
}
