/**
 * A commit notes its new rows for the pipelines that run on new data, against DynamoDB Local: a data
 * set nobody watches is read, never written (a conditional write that fails is billed as a write, on
 * every commit of every table), one that is watched is marked, and one whose watcher left is not.
 * In a table of the file's own: the service's on-new-data schedule takes the marks of the table it
 * runs on, and removes the watches of pipelines that do not exist, such as these.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useOwnTable } from '../support/own-table.ts';

let watches: typeof import('#shared/adapters/dynamo/source-watches.ts');
let tables: typeof import('#shared/adapters/dynamo/table.ts');
/** What the adapters sent DynamoDB, by command. */
const sent: string[] = [];
useOwnTable('source-watches');
beforeAll(async () => {
  watches = await import('#shared/adapters/dynamo/source-watches.ts');
  tables = await import('#shared/adapters/dynamo/table.ts');
  tables.db.middlewareStack.add(
    (next, context) => async (args) => {
      // The document client's commands and the low-level ones they send alike: the low-level ones are the requests.
      if (context.commandName?.endsWith('ItemCommand')) sent.push(context.commandName);
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
});

const marksOf = async (dataSetId: string) =>
  (await watches.sourceWatch.sourcesWithNewRows()).find((source) => source.dataSetId === dataSetId)?.mark ?? null;

describe('noting new rows', () => {
  it('reads, and writes nothing, for a data set no pipeline watches', async () => {
    const dataSetId = randomUUID();
    sent.length = 0;
    await watches.noteNewRows(dataSetId);
    expect(sent).toEqual(['GetItemCommand']);
    expect(await marksOf(dataSetId)).toBeNull();
  });

  it('marks a watched data set once per commit, and nothing once its last watcher has left', async () => {
    const dataSetId = randomUUID();
    const pipelineId = randomUUID();
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await tables.db.send(new UpdateCommand(watches.watchUpdate(dataSetId, pipelineId)));
    expect(await marksOf(dataSetId)).toBe(1);
    await watches.noteNewRows(dataSetId);
    await watches.noteNewRows(dataSetId);
    expect(await marksOf(dataSetId)).toBe(3);

    await watches.sourceWatch.unwatch(dataSetId, pipelineId);
    sent.length = 0;
    await watches.noteNewRows(dataSetId);
    expect(sent).toEqual(['GetItemCommand']);
    expect(await marksOf(dataSetId)).toBeNull();
  });
});
