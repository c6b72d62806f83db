/**
 * A tenant's dashboard connection, and its credential's API-key lookup item.
 *   pk TENANT#<tenant_id>   sk DASHBOARD_CONNECTION
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DashboardConnection, DashboardStatus } from '../../domain/tenants/dashboard.ts';
import { apiKeyKeys } from './api-key-items.ts';
import { db, table } from './table.ts';

export const dashboardKeys = {
  connection: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'DASHBOARD_CONNECTION' }),
};

function toConnection(item: Record<string, unknown>): DashboardConnection {
  return {
    tenant_id: item.tenant_id as string,
    status: item.status as DashboardStatus,
    last_error: (item.last_error as string | null) ?? null,
    rotated_at: (item.rotated_at as string | null) ?? null,
    credential: (item.credential as DashboardConnection['credential']) ?? null,
    updated_at: item.updated_at as string,
  };
}

export async function getDashboardConnection(tenantId: string): Promise<DashboardConnection | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: dashboardKeys.connection(tenantId), ConsistentRead: true }),
  );
  return result.Item ? toConnection(result.Item) : null;
}

export async function saveDashboardCredential(
  connection: DashboardConnection,
  credential: { api_key_id: string; hash: string; prefix: string; created_at: string },
  previousHash: string | null,
): Promise<void> {
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: { ...dashboardKeys.connection(connection.tenant_id), entity: 'DashboardConnection', ...connection },
          },
        },
        {
          Put: {
            TableName: table(),
            Item: {
              ...apiKeyKeys.lookup(credential.hash),
              entity: 'ApiKey',
              api_key_id: credential.api_key_id,
              user_id: null,
              tenant_id: connection.tenant_id,
              role: 'TenantViewer',
              name: 'dashboard connection',
              prefix: credential.prefix,
              hash: credential.hash,
              created_at: credential.created_at,
              last_used_at: null,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...(previousHash ? [{ Delete: { TableName: table(), Key: apiKeyKeys.lookup(previousHash) } }] : []),
      ],
    }),
  );
}

export async function setDashboardStatus(
  tenantId: string,
  status: DashboardStatus,
  lastError: string | null,
  now: Date,
): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: table(),
      Key: dashboardKeys.connection(tenantId),
      UpdateExpression: 'SET #status = :status, last_error = :error, updated_at = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status, ':error': lastError, ':at': now.toISOString() },
    }),
  );
}
