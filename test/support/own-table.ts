/**
 * A DynamoDB Local table of the calling test file's own, made before its tests and deleted after:
 * no other test, and none of the service's schedules, touch its partitions. The service's modules
 * the file imports after this file's beforeAll (in a beforeAll of its own) use it.
 */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { useServiceEnvironment } from './service-env.ts';

export function useOwnTable(prefix: string): string {
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  let tables: typeof import('#shared/adapters/dynamo/table.ts') | undefined;
  beforeAll(async () => {
    useServiceEnvironment();
    process.env.TABLE_NAME = tableName;
    tables = await import('#shared/adapters/dynamo/table.ts');
    const { createTableInput } = await import('#shared/adapters/dynamo/table-schema.ts');
    await tables.db.send(new CreateTableCommand(createTableInput(tableName)));
  });
  afterAll(async () => {
    await tables?.db.send(new DeleteTableCommand({ TableName: tableName }));
  });
  return tableName;
}
