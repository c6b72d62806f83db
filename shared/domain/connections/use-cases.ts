import { randomUUID } from 'node:crypto';
import { type DataSet, envelopeSchema, newDataSet } from '../datasets/model.ts';
import { conflict, notFound } from '../errors.ts';
import type { Page, PageRequest } from '../pagination.ts';
import { type Principal, requireTenantVisible } from '../principal.ts';
import { type TenantIntent, tenantFor } from '../tenants/guard.ts';
import type { Tenant } from '../tenants/model.ts';
import { issueToken } from '../tokens.ts';
import { type Connection, type ConnectionStatus, type Source, type SourceStatus, sourceOf } from './model.ts';

export interface ConnectionRepository {
  createConnection(connection: Connection, source: Source, dataSet: DataSet): Promise<void>;
  getConnection(connectionId: string): Promise<Connection | null>;
  listConnectionsByTenant(tenantId: string, page: PageRequest): Promise<Page<Connection>>;
  changeConnection(
    connection: Connection,
    change: { status?: ConnectionStatus; source_status?: SourceStatus; token?: { hash: string; prefix: string } },
    now: Date,
  ): Promise<void>;
  deleteConnection(connection: Connection): Promise<void>;
}

export type Deps = ConnectionRepository & { getTenant(tenantId: string): Promise<Tenant | null> };

/**
 * Create a webhook connection.
 * Input: the tenant, a name, and the public base URL of the API. Output: the connection, its data
 * set, the ingest token (shown this once) and the URL senders post to (kept on the source).
 *  1. The tenant must be visible and writable.
 *  2. A new source id and token are issued; only the token's hash is kept.
 *  3. Connection, source and the connection's one data set are stored together.
 */
export async function createConnection(
  deps: Deps,
  principal: Principal,
  tenantId: string,
  input: { type: 'Webhook'; name: string },
  now = new Date(),
  baseUrl: string | null = null,
) {
  const tenant = await tenantFor(deps, principal, tenantId, 'write');
  const at = now.toISOString();
  const token = issueToken('ingestToken');
  const connection: Connection = {
    connection_id: randomUUID(),
    tenant_id: tenantId,
    type: input.type,
    name: input.name,
    status: 'Active',
    source_id: randomUUID(),
    source_status: 'Active',
    data_set_id: randomUUID(),
    token_prefix: token.displayPrefix,
    created_at: at,
    updated_at: at,
  };
  const dataSet = newDataSet(
    {
      data_set_id: connection.data_set_id,
      tenant_id: tenantId,
      tenant_slug: tenant.slug,
      name: input.name,
      origin: { type: 'Webhook', connection_id: connection.connection_id, source_id: connection.source_id },
      schema_json: envelopeSchema,
    },
    at,
  );
  // Kept on the source: URL-signing senders sign exactly the URL they were given.
  const ingestUrl = baseUrl === null ? null : `${baseUrl}/api/ingest/${connection.source_id}`;
  await deps.createConnection(connection, sourceOf(connection, token.hash, ingestUrl), dataSet);
  return { connection, dataSet, ingestToken: token.token, ingestUrl };
}

export async function visibleConnection(
  deps: Deps,
  principal: Principal,
  connectionId: string,
  intent: TenantIntent,
): Promise<Connection> {
  const connection = await deps.getConnection(connectionId);
  if (!connection) throw notFound('Connection');
  requireTenantVisible(principal, connection.tenant_id, 'Connection');
  await tenantFor(deps, principal, connection.tenant_id, intent);
  return connection;
}

/**
 * A connection as its page shows it: with the ingest URL its senders were given (the one URL-signing
 * providers sign, whatever host the reader came by), or null for a source made before it was kept.
 */
export async function connectionDetail(
  deps: Deps & { getSource(sourceId: string): Promise<Source | null> },
  principal: Principal,
  connectionId: string,
): Promise<Connection & { ingest_url: string | null }> {
  const connection = await visibleConnection(deps, principal, connectionId, 'read');
  const source = await deps.getSource(connection.source_id);
  return { ...connection, ingest_url: source?.ingest_url ?? null };
}

export async function listConnections(deps: Deps, principal: Principal, tenantId: string, page: PageRequest) {
  await tenantFor(deps, principal, tenantId, 'read');
  return deps.listConnectionsByTenant(tenantId, page);
}

/** A new token; the old one stops working on ingest within INGEST_CACHE_SECONDS (docs/ingest.md). */
export async function regenerateToken(
  deps: Deps,
  principal: Principal,
  connectionId: string,
  now = new Date(),
): Promise<string> {
  const connection = await visibleConnection(deps, principal, connectionId, 'write');
  const token = issueToken('ingestToken');
  await deps.changeConnection(connection, { token: { hash: token.hash, prefix: token.displayPrefix } }, now);
  return token.token;
}

type StateMove = { field: 'status'; to: ConnectionStatus } | { field: 'source_status'; to: SourceStatus };

/**
 * Activate, deactivate, pause or resume. Moving to the state a connection is already in is 409, so
 * that a caller whose view is stale learns it. Deactivating and pausing only reduce what is
 * accepted, so they work during a tenant suspension; activating and resuming do not.
 */
export async function moveConnection(
  deps: Deps,
  principal: Principal,
  connectionId: string,
  move: StateMove,
  now = new Date(),
): Promise<void> {
  const reduces = move.to === 'Inactive' || move.to === 'Paused';
  const connection = await visibleConnection(deps, principal, connectionId, reduces ? 'restrict' : 'write');
  if (connection[move.field] === move.to)
    throw conflict(`The ${move.field === 'status' ? 'connection' : 'source'} is already ${move.to}`);
  await deps.changeConnection(connection, { [move.field]: move.to }, now);
}

/**
 * Deleting a connection stops its ingest; its data set and everything written stay. It cannot be undone, so a
 * suspended tenant's is refused (422) like its other management writes: deactivating or pausing stops ingest then.
 */
export async function deleteConnection(deps: Deps, principal: Principal, connectionId: string): Promise<void> {
  const connection = await visibleConnection(deps, principal, connectionId, 'write');
  await deps.deleteConnection(connection);
}
