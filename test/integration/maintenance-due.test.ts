/**
 * Which tables wait for maintenance, against DynamoDB Local in a table of this file's own: each table
 * marked due has an item of its own and an entry in the ten-minute window it is due in, under one of
 * 4 shards (sha256 of the data set id, its first four bytes modulo 4, worked out with Python's
 * hashlib: ds-later 1, ds-legacy-later 0). A schedule run reads the windows since the last run's
 * record, not every table marked: a table due in three days is found by the run three days on, and a
 * run after a long stop catches up a day a run; a run hands on a bounded number, and the next reads on
 * from the window where it stopped. Items of the layout before the windows (one MAINTENANCE
 * partition) are moved by the first run.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { asStored } from '#shared/adapters/dynamo/stored-items.ts';
import { useOwnTable } from '../support/own-table.ts';

let tables: typeof import('#shared/adapters/dynamo/table.ts');
let maintenance: typeof import('#shared/adapters/dynamo/table-maintenance.ts');
const tableName = useOwnTable('maintenance');

beforeAll(async () => {
  tables = await import('#shared/adapters/dynamo/table.ts');
  maintenance = await import('#shared/adapters/dynamo/table-maintenance.ts');
});

const minute = 60_000;
const day = 24 * 60 * minute;
const windowIso = (ms: number) => new Date(Math.floor(ms / (10 * minute)) * 10 * minute).toISOString();

/** The data set ids a run finds due at `now`, and what it records (as the schedule does once it queued them). */
async function run(now: number): Promise<string[]> {
  const reading = await maintenance.dueMaintenance(new Date(now));
  await maintenance.readMaintenanceThrough(reading.through);
  return reading.due.map((due) => due.dataSetId).sort();
}

async function partition(pk: string) {
  return (await tables.queryAll({ partition: pk, consistent: true }, asStored)).map((item) => ({
    sk: item.sk,
    due_at: item.due_at,
    job_id: item.job_id,
  }));
}

/** A moment safely past every write made so far (a write lists a table in the minute it lands, at the latest). */
const soon = () => Date.now() + 30_000;

describe('tables due for maintenance', () => {
  it('are found by the run after they came due, once, and not before', async () => {
    const start = Date.now();
    await maintenance.markMaintenanceDue('ds-now', 'tenant-1', new Date(start));
    expect(await partition('MAINTENANCE#ds-now')).toEqual([
      { sk: 'DUE', due_at: new Date(start).toISOString(), job_id: undefined },
    ]);

    expect(await run(soon())).toEqual(['ds-now']);
    // Taken (a job queued for it): the next run of the same minutes does not find it again.
    expect(await maintenance.takeMaintenance('ds-now', 'job-1')).toBe(true);
    expect(await run(soon())).toEqual([]);
    // Its run ends with nothing more to do: its item goes.
    await maintenance.finishMaintenance('ds-now', 'tenant-1', null, new Date(start + 1));
    expect(await partition('MAINTENANCE#ds-now')).toEqual([]);
  });

  it('are found again when their run ends after they were marked due again', async () => {
    const start = Date.now();
    await maintenance.markMaintenanceDue('ds-busy', 'tenant-1', new Date(start - 10 * day));
    expect(await run(soon())).toEqual(['ds-busy']);
    expect(await maintenance.takeMaintenance('ds-busy', 'job-2')).toBe(true);
    expect(await run(soon())).toEqual([]);
    // A run that began before the table was last marked due ends: the table stays due, freed.
    await maintenance.finishMaintenance('ds-busy', 'tenant-1', new Date(start + day), new Date(start - 20 * day));
    expect(await partition('MAINTENANCE#ds-busy')).toEqual([
      { sk: 'DUE', due_at: new Date(start - 10 * day).toISOString(), job_id: undefined },
    ]);
    expect(await run(soon())).toEqual(['ds-busy']);
    expect(await maintenance.takeMaintenance('ds-busy', 'job-3')).toBe(true);
  });

  it('keep what was marked before the minutes: the first run moves it and finds what is due', async () => {
    const now = Date.now();
    for (const [dataSetId, dueAt] of [
      ['ds-legacy', new Date(now - day)],
      ['ds-legacy-later', new Date(now + day)],
    ] as const)
      await tables.db.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: 'MAINTENANCE',
            sk: `DUE#${dataSetId}`,
            entity: 'MaintenanceDue',
            data_set_id: dataSetId,
            tenant_id: 'tenant-1',
            due_at: dueAt.toISOString(),
          },
        }),
      );

    expect(await run(soon())).toEqual(['ds-legacy']);
    expect(await maintenance.takeMaintenance('ds-legacy', 'job-4')).toBe(true);
    expect(await partition('MAINTENANCE')).toEqual([]);
    expect(await partition('MAINTENANCE#ds-legacy')).toEqual([
      { sk: 'DUE', due_at: new Date(now - day).toISOString(), job_id: 'job-4' },
    ]);
    expect(await partition(`MAINTENANCE#AT#${windowIso(now + day)}#0`)).toEqual([
      { sk: 'ds-legacy-later', due_at: new Date(now + day).toISOString(), job_id: undefined },
    ]);
    expect(await partition('MAINTENANCE#ds-legacy-later')).toEqual([
      { sk: 'DUE', due_at: new Date(now + day).toISOString(), job_id: undefined },
    ]);
    // Done with (a run of its own), so that the last test's runs a day on do not find it.
    await maintenance.finishMaintenance('ds-legacy-later', 'tenant-1', null, new Date(now + 2 * day));
  });

  // Near the end: its runs move the record three days on.
  it('due in three days, are found by a run three days on, which catches up a day a run', async () => {
    // The record is now two minutes back at most, in the window of this moment or the one before.
    expect(await run(soon())).toEqual([]);
    const inThreeDays = new Date(Date.now() + 3 * day);
    await maintenance.markMaintenanceDue('ds-later', 'tenant-1', inThreeDays);
    // Its item, and an entry in its window's shard.
    expect(await partition('MAINTENANCE#ds-later')).toEqual([
      { sk: 'DUE', due_at: inThreeDays.toISOString(), job_id: undefined },
    ]);
    expect(await partition(`MAINTENANCE#AT#${windowIso(inThreeDays.getTime())}#1`)).toEqual([
      { sk: 'ds-later', due_at: inThreeDays.toISOString(), job_id: undefined },
    ]);
    expect(await run(soon())).toEqual([]);

    // Three days on: each run reads a day from the record, so the third ends a window before the
    // table's at the latest, and the fourth reaches it.
    const found = [];
    for (let catchUp = 1; catchUp <= 4; catchUp++) found.push(await run(inThreeDays.getTime() + minute));
    expect(found).toEqual([[], [], [], ['ds-later']]);
    expect(await maintenance.takeMaintenance('ds-later', 'job-5')).toBe(true);
  });

  it('are handed on a bounded number a run, the next run reading on from the window where it stopped', async () => {
    // A month on, with no record: the windows of the hour before are read, and only these tables are in them.
    await tables.db.send(new DeleteCommand({ TableName: tableName, Key: { pk: 'MAINTENANCE#SCHEDULE', sk: 'READ' } }));
    const base = Math.floor((Date.now() + 30 * day) / (10 * minute)) * 10 * minute;
    for (const [i, dataSetId] of ['ds-first', 'ds-second', 'ds-third'].entries())
      await maintenance.markMaintenanceDue(dataSetId, 'tenant-1', new Date(base + (i * 10 + 1) * minute));

    // One entry a run at most (the first window a run reads is read whole).
    const handed = [];
    for (let runs = 1; runs <= 4; runs++) {
      const reading = await maintenance.dueMaintenance(new Date(base + 40 * minute), 1);
      await maintenance.readMaintenanceThrough(reading.through);
      const ids = reading.due.map((due) => due.dataSetId);
      handed.push(ids);
      for (const dataSetId of ids) expect(await maintenance.takeMaintenance(dataSetId, `job-${dataSetId}`)).toBe(true);
    }
    expect(handed).toEqual([['ds-first'], ['ds-second'], ['ds-third'], []]);
  });
});
