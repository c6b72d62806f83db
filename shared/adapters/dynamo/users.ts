/**
 * Users.
 *   pk USER#<user_id>            sk USER         the user
 *     gsi1pk TENANT#<tenant_id>#USERS (PLATFORM#USERS for PlatformAdmins)  gsi1sk <created_at>#<user_id>
 *     gsi2pk USERS                                                          gsi2sk <created_at>#<user_id>
 *   pk USER_EMAIL#<lowercased>   sk USER_EMAIL   the email claim that makes addresses unique
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { User } from '../../domain/identity/model.ts';
import { db, table } from './table.ts';

export const userKeys = {
  user: (userId: string) => ({ pk: `USER#${userId}`, sk: 'USER' }),
  emailClaim: (normalizedEmail: string) => ({ pk: `USER_EMAIL#${normalizedEmail}`, sk: 'USER_EMAIL' }),
  byTenant: (tenantId: string | null) => (tenantId ? `TENANT#${tenantId}#USERS` : 'PLATFORM#USERS'),
  all: 'USERS',
  order: (user: Pick<User, 'created_at' | 'user_id'>) => `${user.created_at}#${user.user_id}`,
};

export function toUser(item: Record<string, unknown>): User {
  return {
    user_id: item.user_id as string,
    email: item.email as string,
    external_id: (item.external_id as string | null) ?? null,
    role: item.role as User['role'],
    status: item.status as User['status'],
    tenant_id: (item.tenant_id as string | null) ?? null,
    tenant_name: (item.tenant_name as string | null) ?? null,
    tenant_slug: (item.tenant_slug as string | null) ?? null,
    password_hash: item.password_hash as string,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

export async function getUser(userId: string): Promise<User | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: userKeys.user(userId), ConsistentRead: true }),
  );
  return result.Item ? toUser(result.Item) : null;
}
