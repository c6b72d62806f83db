/**
 * Connections and their data sources, written together.
 *   pk CONNECTION#<connection_id>  sk CONNECTION   the connection
 *     gsi1pk TENANT#<tenant_id>#CONNECTIONS  gsi1sk <created_at>#<connection_id>
 *   pk SOURCE#<source_id>          sk SOURCE       what ingest reads: token hash and statuses
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type Connection, connectionStatuses, type Source, sourceStatuses } from '../../domain/connections/model.ts';
import type { DedupKey } from '../../domain/connections/presets.ts';
import { authModes, signatureSchemes } from '../../domain/connections/security-names.ts';
import {
  defaultSecurity,
  type SealedSecret,
  type SignatureSettings,
  type SourceSecurity,
} from '../../domain/connections/source-security.ts';
import type { DataSet } from '../../domain/datasets/model.ts';
import { notFound } from '../../domain/errors.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { dataSetItem } from './data-sets.ts';
import { sourceCache } from './ingest-cache.ts';
import { itemReader, objectOf, orNull } from './stored-items.ts';
import { db, queryAll, queryPage, setFieldsCommand, table, writeOrRefuse } from './table.ts';

export const connectionKeys = {
  connection: (connectionId: string) => ({ pk: `CONNECTION#${connectionId}`, sk: 'CONNECTION' }),
  source: (sourceId: string) => ({ pk: `SOURCE#${sourceId}`, sk: 'SOURCE' }),
  byTenant: (tenantId: string) => `TENANT#${tenantId}#CONNECTIONS`,
};

const toConnection = itemReader<Connection>('Connection', {
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
});

const storedSignature = objectOf<SignatureSettings>({
  scheme: z.enum(signatureSchemes),
  header: z.string().nullable(),
  encoding: z.enum(['hex', 'base64']).nullable(),
  tolerance_seconds: z.number().nullable(),
  secrets: z.array(
    objectOf<SealedSecret>({ sealed: z.string(), created_at: z.string(), expires_at: z.string().nullable() }),
  ),
  public_key: orNull(z.string()),
  verify_token_hash: orNull(z.string()),
});

const storedSecurity = objectOf<SourceSecurity>({
  auth_mode: z.enum(authModes),
  signature: storedSignature.nullable(),
  dedup_window_seconds: z.number(),
  dedup_key: orNull(
    z.union([
      objectOf<Extract<DedupKey, { header: string }>>({ header: z.string() }),
      objectOf<Extract<DedupKey, { json_pointer: string }>>({ json_pointer: z.string() }),
    ]),
  ),
  rate_limit: z.object({ requests_per_second: z.number(), burst: z.number() }).nullable(),
  ip_allowlist: z.array(z.string()).nullable(),
});

/** What ingest reads about a source; a source made before its security settings existed takes the defaults. */
export const toSource = itemReader<Source>('Source', {
  source_id: z.string(),
  connection_id: z.string(),
  tenant_id: z.string(),
  data_set_id: z.string(),
  token_hash: z.string(),
  source_status: z.enum(sourceStatuses),
  connection_status: z.enum(connectionStatuses),
  security: storedSecurity.optional().transform((security) => security ?? defaultSecurity),
  ingest_url: orNull(z.string()),
});

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
