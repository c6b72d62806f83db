/**
 * Pipelines and their deployed snapshots.
 *   pk PIPELINE#<pipeline_id>  sk PIPELINE              the pipeline (its output, checkpoint and last automatic run)
 *     gsi1pk TENANT#<tenant_id>#PIPELINES  gsi1sk <created_at>#<pipeline_id>
 *     gsi2pk PIPELINES#<nn>                gsi2sk <created_at>#<pipeline_id>   nn: its shard, 00-15 (sharded-lists.ts)
 *   pk PIPELINE#<pipeline_id>  sk VERSION#<version, 10 digits>   an immutable deployed definition
 */
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { conflict, notFound } from '../../domain/errors.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { pipelineDefinition } from '../../domain/pipelines/definition.ts';
import {
  type AutomaticRun,
  type DeployedVersion,
  type Pipeline,
  type PipelineProgress,
  pipelineStatuses,
} from '../../domain/pipelines/model.ts';
import { queryShardedPage, shardKey } from './sharded-lists.ts';
import { watchUpdate } from './source-watches.ts';
import { itemReader, objectOf, orNull, shapeReader } from './stored-items.ts';
import {
  conditionHeld,
  db,
  isConditionFailure,
  queryAll,
  queryPage,
  setFieldsCommand,
  table,
  writeOrRefuse,
} from './table.ts';

export const pipelineKeys = {
  pipeline: (pipelineId: string) => ({ pk: `PIPELINE#${pipelineId}`, sk: 'PIPELINE' }),
  version: (pipelineId: string, version: number) => ({
    pk: `PIPELINE#${pipelineId}`,
    sk: `VERSION#${String(version).padStart(10, '0')}`,
  }),
  byTenant: (tenantId: string) => `TENANT#${tenantId}#PIPELINES`,
  /** The platform-wide list's key: each pipeline is under one of its 16 shards, `PIPELINES#<nn>` (sharded-lists.ts). */
  all: 'PIPELINES',
  shard: (pipelineId: string) => shardKey(pipelineKeys.all, pipelineId),
};

/** Every write of a pipeline sets its shard: one written before the shards leaves the legacy `PIPELINES` key on its next write. */
const shardOf = (pipelineId: string) => ({ gsi2pk: pipelineKeys.shard(pipelineId) });

/** The definition as it was checked when it was written: read back through the same schema. */
const toPipeline = /* @__PURE__ */ itemReader<Pipeline & PipelineProgress>('Pipeline', () => ({
  pipeline_id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  definition: orNull(pipelineDefinition),
  status: z.enum(pipelineStatuses),
  working_set_id: z.string(),
  working_version: z.number(),
  deployed_version: z.number(),
  deployed_at: orNull(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  output_data_set_id: orNull(z.string()),
  checkpoint: orNull(
    z.object({
      data_set_id: z.string(),
      version: z.number(),
      first_read: z.object({ version: z.number(), files: z.number() }).optional(),
    }),
  ),
  automatic_run: orNull(objectOf<AutomaticRun>({ job_id: z.string(), source_version: z.number(), after: z.number() })),
}));

const toDeployedVersion = /* @__PURE__ */ itemReader<DeployedVersion>('DeployedPipelineVersion', () => ({
  pipeline_id: z.string(),
  version: z.number(),
  definition: pipelineDefinition,
  deployed_at: z.string(),
}));

/** Deleting a pipeline reads only the keys of its items. */
const toKey = /* @__PURE__ */ shapeReader('Pipeline', () => ({ pk: z.string(), sk: z.string() }));

export async function createPipeline(pipeline: Pipeline): Promise<void> {
  const order = `${pipeline.created_at}#${pipeline.pipeline_id}`;
  await db.send(
    new PutCommand({
      TableName: table(),
      Item: {
        ...pipelineKeys.pipeline(pipeline.pipeline_id),
        entity: 'Pipeline',
        gsi1pk: pipelineKeys.byTenant(pipeline.tenant_id),
        gsi1sk: order,
        gsi2pk: pipelineKeys.shard(pipeline.pipeline_id),
        gsi2sk: order,
        ...pipeline,
        output_data_set_id: null,
        checkpoint: null,
        automatic_run: null,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function getPipeline(pipelineId: string): Promise<(Pipeline & PipelineProgress) | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: pipelineKeys.pipeline(pipelineId), ConsistentRead: true }),
  );
  return result.Item ? toPipeline(result.Item) : null;
}

export async function listPipelinesByTenant(tenantId: string, page: PageRequest): Promise<Page<Pipeline>> {
  return queryPage({ index: 'gsi1', partition: pipelineKeys.byTenant(tenantId) }, page, toPipeline);
}

export async function listAllPipelines(page: PageRequest): Promise<Page<Pipeline>> {
  return queryShardedPage({ index: 'gsi2', base: pipelineKeys.all }, page, toPipeline);
}

/** Optimistic: the change applies only to the working version the caller read. */
export async function updatePipeline(
  pipelineId: string,
  expectedWorkingVersion: number,
  changes: Partial<Pick<Pipeline, 'name' | 'definition' | 'status' | 'working_version'>>,
  now: Date,
): Promise<void> {
  await writeOrRefuse(
    db.send(
      new UpdateCommand(
        setFieldsCommand(
          pipelineKeys.pipeline(pipelineId),
          { ...changes, updated_at: now.toISOString(), ...shardOf(pipelineId) },
          { expression: 'working_version = :expected', values: { ':expected': expectedWorkingVersion } },
        ),
      ),
    ),
    async () =>
      (await getPipeline(pipelineId))
        ? conflict('The pipeline changed meanwhile; read it again and retry')
        : notFound('Pipeline'),
  );
}

export async function deployVersion(snapshot: DeployedVersion, now: Date): Promise<void> {
  await writeOrRefuse(
    db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: {
                ...pipelineKeys.version(snapshot.pipeline_id, snapshot.version),
                entity: 'DeployedPipelineVersion',
                ...snapshot,
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Update: setFieldsCommand(
              pipelineKeys.pipeline(snapshot.pipeline_id),
              {
                deployed_version: snapshot.version,
                deployed_at: snapshot.deployed_at,
                updated_at: now.toISOString(),
                ...shardOf(snapshot.pipeline_id),
              },
              { expression: 'working_version = :expected', values: { ':expected': snapshot.version } },
            ),
          },
          // Runs on new data: its source is watched from now on, and marked for the rows already there.
          ...(snapshot.definition.on_new_data
            ? [{ Update: watchUpdate(snapshot.definition.source.data_set_id, snapshot.pipeline_id) }]
            : []),
        ],
      }),
    ),
    () => conflict('The pipeline changed meanwhile; read it again and retry'),
  );
}

export async function getDeployedVersion(pipelineId: string, version: number): Promise<DeployedVersion | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: pipelineKeys.version(pipelineId, version), ConsistentRead: true }),
  );
  return result.Item ? toDeployedVersion(result.Item) : null;
}

/** Every item of the pipeline, however many versions it has (each page of the partition is read). */
export async function deletePipeline(pipelineId: string): Promise<void> {
  const keys = await queryAll({ partition: pipelineKeys.pipeline(pipelineId).pk }, toKey);
  for (let i = 0; i < keys.length; i += 100) {
    await db.send(
      new TransactWriteCommand({
        TransactItems: keys.slice(i, i + 100).map((Key) => ({ Delete: { TableName: table(), Key } })),
      }),
    );
  }
}

/** The checkpoint moves only from the value the run started from: two runs cannot both advance it. */
export async function saveProgress(
  pipelineId: string,
  expected: Pick<PipelineProgress, 'output_data_set_id' | 'checkpoint'>,
  progress: Pick<PipelineProgress, 'output_data_set_id' | 'checkpoint'>,
  now: Date,
): Promise<void> {
  try {
    await db.send(
      new UpdateCommand(
        setFieldsCommand(
          pipelineKeys.pipeline(pipelineId),
          {
            output_data_set_id: progress.output_data_set_id,
            checkpoint: progress.checkpoint,
            updated_at: now.toISOString(),
            ...shardOf(pipelineId),
          },
          progressCondition(expected),
        ),
      ),
    );
  } catch (error) {
    if (isConditionFailure(error))
      throw new Error('The pipeline progressed meanwhile (another run, or it was deleted)');
    throw error;
  }
}

/** The pipeline item still names the output and holds the checkpoint the run started from. */
function progressCondition(expected: Pick<PipelineProgress, 'output_data_set_id' | 'checkpoint'>) {
  const { checkpoint } = expected;
  const clauses = ['attribute_exists(pk)'];
  // DynamoDB refuses a value the expression does not use: :null only where a clause names it.
  const values: Record<string, unknown> = {};
  if (expected.output_data_set_id === null || checkpoint === null) values[':null'] = 'NULL';
  if (expected.output_data_set_id === null)
    clauses.push('(attribute_not_exists(output_data_set_id) OR attribute_type(output_data_set_id, :null))');
  else {
    clauses.push('output_data_set_id = :output');
    values[':output'] = expected.output_data_set_id;
  }
  if (checkpoint === null) clauses.push('(attribute_not_exists(checkpoint) OR attribute_type(checkpoint, :null))');
  else {
    clauses.push('checkpoint.version = :version AND checkpoint.data_set_id = :source');
    Object.assign(values, { ':version': checkpoint.version, ':source': checkpoint.data_set_id });
    if (checkpoint.first_read) {
      clauses.push('checkpoint.first_read.version = :read AND checkpoint.first_read.files = :files');
      Object.assign(values, { ':read': checkpoint.first_read.version, ':files': checkpoint.first_read.files });
    } else clauses.push('attribute_not_exists(checkpoint.first_read)');
  }
  return { expression: clauses.join(' AND '), values };
}

export async function recordAutomaticRun(
  pipelineId: string,
  previousJobId: string | null,
  run: NonNullable<PipelineProgress['automatic_run']>,
): Promise<boolean> {
  return conditionHeld(
    db.send(
      new UpdateCommand(
        setFieldsCommand(
          pipelineKeys.pipeline(pipelineId),
          { automatic_run: run, ...shardOf(pipelineId) },
          previousJobId
            ? { expression: 'automatic_run.job_id = :previous', values: { ':previous': previousJobId } }
            : {
                expression:
                  'attribute_exists(pk) AND (attribute_not_exists(automatic_run) OR attribute_type(automatic_run, :null))',
                values: { ':null': 'NULL' },
              },
        ),
      ),
    ),
  );
}
