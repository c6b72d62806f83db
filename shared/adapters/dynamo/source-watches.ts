/**
 * Which data sets pipelines that run on new data watch, and which of them got rows since.
 *   pk SOURCE_WATCH#<data_set_id>  sk WATCH   pipelines (string set: the watching pipelines), marks (a count)
 *     gsi1pk SOURCES_WITH_NEW_ROWS  gsi1sk <data_set_id>   only while new rows wait to be run on
 * A deploy of a definition with on_new_data adds its pipeline (and marks the source, for the rows
 * already there); every commit of a watched data set marks it. The schedule reads the sparse
 * index partition, which is empty while sources are quiet, and clears a mark once every watcher
 * has caught up. A commit of a data set nobody watches reads the item and writes nothing: a
 * strongly consistent read (1 read unit) where a conditional write that fails still costs a write
 * unit, five times as much, on every commit of every unwatched table. Read after the commit, it
 * misses no watcher: one added later marks the source itself, for the rows already there.
 */
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { SourceWatch } from '../../domain/pipelines/ports.ts';
import { shapeReader, stringSet } from './stored-items.ts';
import { conditionHeld, db, queryAll, table } from './table.ts';

export const sourceWatchKeys = {
  watch: (dataSetId: string) => ({ pk: `SOURCE_WATCH#${dataSetId}`, sk: 'WATCH' }),
  withNewRows: 'SOURCES_WITH_NEW_ROWS',
};

/** The update that adds a watcher and marks the source; deploys run it in their transaction. */
export function watchUpdate(dataSetId: string, pipelineId: string) {
  return {
    TableName: table(),
    Key: sourceWatchKeys.watch(dataSetId),
    UpdateExpression:
      'ADD pipelines :pipeline, marks :one SET entity = :entity, data_set_id = :id, gsi1pk = :pending, gsi1sk = :id',
    ExpressionAttributeValues: {
      ':pipeline': new Set([pipelineId]),
      ':one': 1,
      ':entity': 'SourceWatch',
      ':id': dataSetId,
      ':pending': sourceWatchKeys.withNewRows,
    },
  };
}

/** A commit of the data set (called once it is in the log): marked when a pipeline watches it, nothing otherwise. */
export async function noteNewRows(dataSetId: string): Promise<void> {
  const watch = await db.send(
    new GetCommand({
      TableName: table(),
      Key: sourceWatchKeys.watch(dataSetId),
      ProjectionExpression: 'pipelines',
      ConsistentRead: true,
    }),
  );
  if (!watch.Item || (toWatchers(watch.Item).pipelines?.size ?? 0) === 0) return;
  // The watcher may leave meanwhile: then nothing is marked.
  await conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: table(),
        Key: sourceWatchKeys.watch(dataSetId),
        UpdateExpression: 'ADD marks :one SET gsi1pk = :pending, gsi1sk = :id',
        ConditionExpression: 'attribute_exists(pipelines)',
        ExpressionAttributeValues: { ':one': 1, ':pending': sourceWatchKeys.withNewRows, ':id': dataSetId },
      }),
    ),
  );
}

/** A watched source as the schedule reads it: marked since its watchers last caught up. */
const toMarkedSource = /* @__PURE__ */ shapeReader('SourceWatch', () => ({
  data_set_id: z.string(),
  marks: z.number(),
}));
/** Who watches a source (a string set; absent once the last watcher left). */
const toWatchers = /* @__PURE__ */ shapeReader('SourceWatch', () => ({
  pipelines: stringSet().optional(),
}));

export const sourceWatch: SourceWatch = {
  async sourcesWithNewRows() {
    const items = await queryAll({ index: 'gsi1', partition: sourceWatchKeys.withNewRows }, toMarkedSource);
    return items.map((item) => ({ dataSetId: item.data_set_id, mark: item.marks }));
  },

  async watchersOf(dataSetId) {
    const result = await db.send(
      new GetCommand({ TableName: table(), Key: sourceWatchKeys.watch(dataSetId), ConsistentRead: true }),
    );
    return [...((result.Item && toWatchers(result.Item).pipelines) ?? [])].sort();
  },

  async unwatch(dataSetId, pipelineId) {
    await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: sourceWatchKeys.watch(dataSetId),
        UpdateExpression: 'DELETE pipelines :pipeline',
        ExpressionAttributeValues: { ':pipeline': new Set([pipelineId]) },
      }),
    );
    // Nobody left watching: the item goes (unless a deploy added a watcher meanwhile).
    await conditionHeld(
      db.send(
        new DeleteCommand({
          TableName: table(),
          Key: sourceWatchKeys.watch(dataSetId),
          ConditionExpression: 'attribute_not_exists(pipelines)',
        }),
      ),
    );
  },

  async settleNewRows(dataSetId, mark) {
    return conditionHeld(
      db.send(
        new UpdateCommand({
          TableName: table(),
          Key: sourceWatchKeys.watch(dataSetId),
          UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
          ConditionExpression: 'marks = :mark',
          ExpressionAttributeValues: { ':mark': mark },
        }),
      ),
    );
  },
};
