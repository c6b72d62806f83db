import { randomUUID } from 'node:crypto';
import { type DataSet, type DeltaSchema, newDataSet } from '../datasets/model.ts';
import type { LogEntry } from '../delta/commit.ts';
import type { AddFile } from '../delta/log.ts';
import type { Job, RejectionSample } from '../jobs/model.ts';
import type { JobOutcome, RunControl } from '../jobs/run-job.ts';
import {
  type Cell,
  type ColumnDefinition,
  compileDecoder,
  type QuerySpecification,
  RowRejected,
} from './definition.ts';
import type { DeployedVersion, Pipeline, PipelineProgress } from './model.ts';
import type { PipelineRepository } from './ports.ts';

/** An envelope as read back from a webhook data set's Parquet file. */
export interface StoredEnvelope {
  message_id: string;
  payload: Buffer;
}

export interface DecodedRow {
  messageId: string;
  dt: string;
  cells: Cell[];
}

export interface SourceReader {
  getDataSet(dataSetId: string): Promise<DataSet | null>;
  logEntries(dataSetId: string): Promise<LogEntry[]>;
  readEnvelopes(dataSet: DataSet, file: AddFile): Promise<StoredEnvelope[]>;
}

export interface PipelineRunDeps
  extends SourceReader,
    Pick<PipelineRepository, 'getPipeline' | 'getDeployedVersion' | 'saveProgress'> {
  createDataSet(dataSet: DataSet): Promise<void>;
  /** Appends rows to the output table, exactly once per source message id. */
  appendRows(
    output: DataSet,
    columns: ColumnDefinition[],
    rows: DecodedRow[],
    attempt: number,
  ): Promise<{ version: number | null; written: number }>;
}

/** Rows a single run processes at most; the rest waits for the next run (the checkpoint says where). */
export const maxRowsPerRun = 500_000;
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

/** Decodes envelopes into rows of the declared columns, counting and sampling what it must reject. */
export class Decoder {
  readonly rows: DecodedRow[] = [];
  rowsIn = 0;
  rejected = 0;
  readonly samples: RejectionSample[] = [];
  private readonly decode: (payload: Buffer) => Cell[];

  constructor(spec: Pick<QuerySpecification, 'columns'>) {
    this.decode = compileDecoder(spec.columns);
  }

  add(envelope: StoredEnvelope, dt: string): void {
    this.rowsIn++;
    try {
      this.rows.push({ messageId: envelope.message_id, dt, cells: this.decode(envelope.payload) });
    } catch (error) {
      if (!(error instanceof RowRejected)) throw error;
      this.rejected++;
      if (this.samples.length < maxSamples)
        this.samples.push({ message_id: envelope.message_id, reason: error.message });
    }
  }
}

/**
 * Run a pipeline job.
 * Input: the job (its pipeline and deployed version). Output: rows in, out and rejected.
 *  1. Load the deployed snapshot the job was started with (later edits do not matter).
 *  2. Read the source's commits after the pipeline's checkpoint, oldest first, up to a bound.
 *  3. Decode each payload as JSON, extract the columns by path with their types; reject what does not fit.
 *  4. Unless cancelled, commit the rows to the output table (created on the first run, partitioned
 *     by the source's dt), exactly once per source message, then advance the checkpoint.
 * No new source data means no commit. A crash between commit and checkpoint is harmless: the next
 * run reads the same rows and the output table already holds them.
 */
export async function runPipeline(
  deps: PipelineRunDeps,
  job: Job,
  control: RunControl,
  attempt = 1,
): Promise<JobOutcome> {
  const { pipeline_id: pipelineId, pipeline_version: version } = job.source as {
    pipeline_id: string;
    pipeline_version: number;
  };
  const pipeline = await deps.getPipeline(pipelineId);
  if (!pipeline) throw new Error('The pipeline was deleted');
  const snapshot = await deps.getDeployedVersion(pipelineId, version);
  if (!snapshot) throw new Error(`Deployed version ${version} of the pipeline does not exist`);
  const definition = snapshot.definition;
  const source = await deps.getDataSet(definition.source.data_set_id);
  if (!source || source.tenant_id !== pipeline.tenant_id) throw new Error('The source data set no longer exists');

  const after = pipeline.checkpoint?.data_set_id === source.data_set_id ? pipeline.checkpoint.version : -1;
  const entries = (await deps.logEntries(source.data_set_id)).filter(
    (entry) => entry.complete && entry.version > after,
  );
  const decoder = new Decoder(definition);
  let lastVersion = after;
  for (const entry of entries) {
    for (const add of entry.adds) {
      const dt = add.partitionValues.dt ?? '';
      for (const envelope of await deps.readEnvelopes(source, add)) decoder.add(envelope, dt);
    }
    lastVersion = entry.version;
    await control.throwIfCancelled();
    if (decoder.rowsIn >= maxRowsPerRun) break;
  }
  const outcome = {
    rows_in: decoder.rowsIn,
    rows_out: 0,
    rows_rejected: decoder.rejected,
    rejection_samples: decoder.samples,
    source: {
      pipeline_id: pipelineId,
      pipeline_version: version,
      data_set_id: source.data_set_id,
      from_version: after + 1,
      to_version: lastVersion,
    },
  };
  if (lastVersion === after) return outcome;

  const output = await outputFor(deps, pipeline, snapshot);
  await control.beginCommit();
  const written =
    decoder.rows.length > 0 ? await deps.appendRows(output, definition.columns, decoder.rows, attempt) : { written: 0 };
  await deps.saveProgress(
    pipelineId,
    pipeline.checkpoint,
    { output_data_set_id: output.data_set_id, checkpoint: { data_set_id: source.data_set_id, version: lastVersion } },
    new Date(),
  );
  return { ...outcome, rows_out: written.written };
}

/**
 * The pipeline's output table: the one it already writes to, or a new one when this is the first
 * run or the deployed definition names a different output. Same name but different columns is an
 * error the tenant must resolve (a Delta table keeps one schema).
 */
async function outputFor(
  deps: PipelineRunDeps,
  pipeline: Pipeline & PipelineProgress,
  snapshot: DeployedVersion,
): Promise<DataSet> {
  const schema = outputSchema(snapshot.definition.columns);
  const existing = pipeline.output_data_set_id ? await deps.getDataSet(pipeline.output_data_set_id) : null;
  if (existing && existing.name === snapshot.definition.output.name) {
    const same =
      JSON.stringify(existing.schema_json.fields.map((f) => [f.name, f.type])) ===
      JSON.stringify(schema.fields.map((f) => [f.name, f.type]));
    if (!same)
      throw new Error(
        `The columns of version ${snapshot.version} differ from those of output "${existing.name}"; give the output a new name`,
      );
    return existing;
  }
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
  return created;
}

/** The rows of a query: the same decoding over the data set's current snapshot, up to `limit` rows. */
export async function runQuery(
  deps: SourceReader,
  job: Job,
  control: RunControl,
): Promise<JobOutcome & { result: QueryResult }> {
  const { query, limit } = job.payload as { query: QuerySpecification; limit: number };
  const source = await deps.getDataSet(query.source.data_set_id);
  if (!source || source.tenant_id !== job.tenant_id) throw new Error('The data set no longer exists');
  const decoder = new Decoder(query);
  const entries = (await deps.logEntries(source.data_set_id)).filter((entry) => entry.complete);
  let truncated = false;
  outer: for (const entry of entries) {
    for (const add of entry.adds) {
      for (const envelope of await deps.readEnvelopes(source, add)) {
        if (decoder.rows.length >= limit) {
          truncated = true;
          break outer;
        }
        decoder.add(envelope, add.partitionValues.dt ?? '');
      }
    }
    await control.throwIfCancelled();
  }
  const result: QueryResult = {
    columns: [
      { name: 'dt', type: 'string' },
      ...query.columns.map((column) => ({ name: column.name, type: column.type })),
    ],
    rows: decoder.rows.map((row) => [row.dt, ...row.cells.map((cell, i) => jsonCell(cell, query.columns[i]?.type))]),
    truncated,
  };
  return {
    rows_in: decoder.rowsIn,
    rows_out: result.rows.length,
    rows_rejected: decoder.rejected,
    rejection_samples: decoder.samples,
    result,
  };
}

export interface QueryResult {
  columns: { name: string; type: string }[];
  rows: (string | number | boolean | null)[][];
  truncated: boolean;
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
