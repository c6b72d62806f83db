/**
 * Connections, written together with their data sources (sources.ts keeps the source's key and reader).
 *   pk CONNECTION#<connection_id>  sk CONNECTION   the connection
 *     gsi1pk TENANT#<tenant_id>#CONNECTIONS  gsi1sk <created_at>#<connection_id>
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type Connection, connectionStatuses, type Source, sourceStatuses } from '../../domain/connections/model.ts';
import type { DataSet } from '../../domain/datasets/model.ts';
import { notFound } from '../../domain/errors.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { dataSetItem } from './data-sets.ts';
import { sourceCache } from './ingest-cache.ts';
import { sourceKey } from './sources.ts';
import { itemReader } from './stored-items.ts';
import { db, queryAll, queryPage, setFieldsCommand, table, writeOrRefuse } from './table.ts';

export const connectionKeys = {
  connection: (connectionId: string) => ({ pk: `CONNECTION#${connectionId}`, sk: 'CONNECTION' }),
  byTenant: (tenantId: string) => `TENANT#${tenantId}#CONNECTIONS`,
};

const toConnection = /* @__PURE__ */ itemReader<Connection>('Connection', () => ({
  connection_id: z.string(),
  tenant_id: z.string(),
  type: z.literal('Webhook'),
  name: z.string(),
  status: z.enum(connectionStatuses),
  source_id: z.string(),
  source_status: z.enum(sourceStatuses),
  data_set_id: z.string(),
  token_prefix: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
}));

function connectionItem(connection: Connection) {
  return {
    ...connectionKeys.connection(connection.connection_id),
    entity: 'Connection',
    gsi1pk: connectionKeys.byTenant(connection.tenant_id),
    gsi1sk: `${connection.created_at}#${connection.connection_id}`,
    ...connection,
  };
}

/** A new connection's items: the connection, its source and its data set. */
export function newConnectionItems(connection: Connection, source: Source, dataSet: DataSet) {
  return [
    connectionItem(connection),
    { ...sourceKey(source.source_id), entity: 'Source', ...source },
    dataSetItem(dataSet),
  ];
}

/** The connection, its source and its data set appear together or not at all. */
export async function createConnection(connection: Connection, source: Source, dataSet: DataSet): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: newConnectionItems(connection, source, dataSet).map((Item) => ({
        Put: { TableName: table(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
      })),
    }),
  );
}

export async function getConnection(connectionId: string): Promise<Connection | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: connectionKeys.connection(connectionId), ConsistentRead: true }),
  );
  return result.Item ? toConnection(result.Item) : null;
}

export async function listConnectionsByTenant(tenantId: string, page: PageRequest): Promise<Page<Connection>> {
  return queryPage({ index: 'gsi1', partition: connectionKeys.byTenant(tenantId) }, page, toConnection);
}

/** Every connection of a tenant, for the service's own use (no cursor leaves the function). */
export async function allConnectionsOfTenant(tenantId: string): Promise<Connection[]> {
  return queryAll({ index: 'gsi1', partition: connectionKeys.byTenant(tenantId) }, toConnection);
}

export interface ConnectionChange {
  status?: Connection['status'];
  source_status?: Connection['source_status'];
  token?: { hash: string; prefix: string };
}

/** Applies a change to the connection and its source in one transaction. */
export async function changeConnection(connection: Connection, change: ConnectionChange, now: Date): Promise<void> {
  const at = now.toISOString();
  const onConnection: Record<string, unknown> = { updated_at: at };
  const onSource: Record<string, unknown> = { updated_at: at };
  if (change.status) {
    onConnection.status = change.status;
    onSource.connection_status = change.status;
  }
  if (change.source_status) {
    onConnection.source_status = change.source_status;
    onSource.source_status = change.source_status;
  }
  if (change.token) {
    onConnection.token_prefix = change.token.prefix;
    onSource.token_hash = change.token.hash;
  }
  try {
    await writeOrRefuse(
      db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: setFieldsCommand(connectionKeys.connection(connection.connection_id), onConnection) },
            { Update: setFieldsCommand(sourceKey(connection.source_id), onSource) },
          ],
        }),
      ),
      () => notFound('Connection'),
    );
  } finally {
    sourceCache.forget(connection.source_id);
  }
}

/** Removes the connection and its source; the data set and everything written stay. */
export async function deleteConnection(connection: Connection): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: table(), Key: connectionKeys.connection(connection.connection_id) } },
        { Delete: { TableName: table(), Key: sourceKey(connection.source_id) } },
      ],
    }),
  );
  sourceCache.forget(connection.source_id);
}
