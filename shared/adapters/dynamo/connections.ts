/**
 * Connections and their data sources, written together.
 *   pk CONNECTION#<connection_id>  sk CONNECTION   the connection
 *     gsi1pk TENANT#<tenant_id>#CONNECTIONS  gsi1sk <created_at>#<connection_id>
 *   pk SOURCE#<source_id>          sk SOURCE       what ingest reads: token hash and statuses
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Connection, defaultSecurity, type Source } from '../../domain/connections/model.ts';
import type { SourceSecurity } from '../../domain/connections/security.ts';
import type { DataSet } from '../../domain/datasets/model.ts';
import { notFound } from '../../domain/errors.ts';
import { mapPage, type Page, type PageRequest } from '../../domain/pagination.ts';
import { dataSetItem } from './data-sets.ts';
import { sourceCache } from './ingest-cache.ts';
import { db, queryAll, queryPage, setFieldsCommand, table, writeOrRefuse } from './table.ts';

export const connectionKeys = {
  connection: (connectionId: string) => ({ pk: `CONNECTION#${connectionId}`, sk: 'CONNECTION' }),
  source: (sourceId: string) => ({ pk: `SOURCE#${sourceId}`, sk: 'SOURCE' }),
  byTenant: (tenantId: string) => `TENANT#${tenantId}#CONNECTIONS`,
};

const connectionFields = [
  'connection_id',
  'tenant_id',
  'type',
  'name',
  'status',
  'source_id',
  'source_status',
  'data_set_id',
  'token_prefix',
  'created_at',
  'updated_at',
] as const;

function toConnection(item: Record<string, unknown>): Connection {
  return Object.fromEntries(connectionFields.map((field) => [field, item[field]])) as unknown as Connection;
}

export function toSource(item: Record<string, unknown>): Source {
  return {
    source_id: item.source_id as string,
    connection_id: item.connection_id as string,
    tenant_id: item.tenant_id as string,
    data_set_id: item.data_set_id as string,
    token_hash: item.token_hash as string,
    source_status: item.source_status as Source['source_status'],
    connection_status: item.connection_status as Source['connection_status'],
    security: (item.security as Source['security'] | undefined) ?? defaultSecurity,
    ingest_url: (item.ingest_url as string | undefined) ?? null,
  };
}

function connectionItem(connection: Connection) {
  return {
    ...connectionKeys.connection(connection.connection_id),
    entity: 'Connection',
    gsi1pk: connectionKeys.byTenant(connection.tenant_id),
    gsi1sk: `${connection.created_at}#${connection.connection_id}`,
    ...connection,
  };
}

/** The connection, its source and its data set appear together or not at all. */
export async function createConnection(connection: Connection, source: Source, dataSet: DataSet): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: connectionItem(connection),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: table(),
            Item: { ...connectionKeys.source(source.source_id), entity: 'Source', ...source },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { Put: { TableName: table(), Item: dataSetItem(dataSet), ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    }),
  );
}

export async function getConnection(connectionId: string): Promise<Connection | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: connectionKeys.connection(connectionId), ConsistentRead: true }),
  );
  return result.Item ? toConnection(result.Item) : null;
}

/** `consistent: false` for a reader that tolerates a moment's staleness (the ingest cache) at half the price. */
export async function getSource(sourceId: string, consistent = true): Promise<Source | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: connectionKeys.source(sourceId), ConsistentRead: consistent }),
  );
  return result.Item ? toSource(result.Item) : null;
}

export async function listConnectionsByTenant(tenantId: string, page: PageRequest): Promise<Page<Connection>> {
  const result = await queryPage<Record<string, unknown>>(
    { index: 'gsi1', partition: connectionKeys.byTenant(tenantId) },
    page,
  );
  return mapPage(result, toConnection);
}

/** Every connection of a tenant, for the service's own use (no cursor leaves the function). */
export async function allConnectionsOfTenant(tenantId: string): Promise<Connection[]> {
  const items = await queryAll<Record<string, unknown>>({
    index: 'gsi1',
    partition: connectionKeys.byTenant(tenantId),
  });
  return items.map(toConnection);
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
            { Update: setFieldsCommand(connectionKeys.source(connection.source_id), onSource) },
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
        { Delete: { TableName: table(), Key: connectionKeys.source(connection.source_id) } },
      ],
    }),
  );
  sourceCache.forget(connection.source_id);
}

export async function setSourceSecurity(sourceId: string, security: SourceSecurity, now: Date): Promise<void> {
  try {
    await writeOrRefuse(
      db.send(
        new UpdateCommand(
          setFieldsCommand(connectionKeys.source(sourceId), { security, updated_at: now.toISOString() }),
        ),
      ),
      () => notFound('Connection'),
    );
  } finally {
    sourceCache.forget(sourceId);
  }
}
