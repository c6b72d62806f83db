/**
 * A tenant's dashboard connection, and its credential's API-key lookup item.
 *   pk TENANT#<tenant_id>   sk DASHBOARD_CONNECTION
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type DashboardConnection, type DashboardStatus, dashboardStatuses } from '../../domain/tenants/dashboard.ts';
import { apiKeyKeys } from './api-key-items.ts';
import { itemReader, orNull } from './stored-items.ts';
import { conditionHeld, db, table, transactionHeld } from './table.ts';

export const dashboardKeys = {
  connection: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'DASHBOARD_CONNECTION' }),
};

const toConnection = /* @__PURE__ */ itemReader<DashboardConnection>('DashboardConnection', () => ({
  tenant_id: z.string(),
  status: z.enum(dashboardStatuses),
  last_error: orNull(z.string()),
  rotated_at: orNull(z.string()),
  credential: orNull(z.object({ api_key_id: z.string(), hash: z.string(), sealed: z.string() })),
  updated_at: z.string(),
}));

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
): Promise<boolean> {
  return transactionHeld(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: { ...dashboardKeys.connection(connection.tenant_id), entity: 'DashboardConnection', ...connection },
            // Still holding the credential the caller read (none: no item, or no credential in it).
            ...(previousHash
              ? {
                  ConditionExpression: 'credential.#hash = :previous',
                  ExpressionAttributeNames: { '#hash': 'hash' },
                  ExpressionAttributeValues: { ':previous': previousHash },
                }
              : {
                  ConditionExpression:
                    'attribute_not_exists(pk) OR attribute_not_exists(credential) OR attribute_type(credential, :null)',
                  ExpressionAttributeValues: { ':null': 'NULL' },
                }),
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

export async function setDashboardOutcome(
  tenantId: string,
  credentialHash: string,
  status: DashboardStatus,
  lastError: string | null,
  now: Date,
): Promise<boolean> {
  return conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: table(),
        Key: dashboardKeys.connection(tenantId),
        UpdateExpression: 'SET #status = :status, last_error = :error, updated_at = :at',
        ConditionExpression: 'credential.#hash = :delivered',
        ExpressionAttributeNames: { '#status': 'status', '#hash': 'hash' },
        ExpressionAttributeValues: {
          ':status': status,
          ':error': lastError,
          ':at': now.toISOString(),
          ':delivered': credentialHash,
        },
      }),
    ),
  );
}
