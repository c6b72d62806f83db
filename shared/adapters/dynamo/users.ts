/**
 * Users.
 *   pk USER#<user_id>            sk USER         the user
 *     gsi1pk TENANT#<tenant_id>#USERS (PLATFORM#USERS for PlatformAdmins)  gsi1sk <created_at>#<user_id>
 *     gsi2pk USERS                                                          gsi2sk <created_at>#<user_id>
 *   pk USER_EMAIL#<lowercased>   sk USER_EMAIL   the email claim that makes addresses unique
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { roles } from '../../domain/authorization.ts';
import { conflict, notFound } from '../../domain/errors.ts';
import { normalizeEmail, type User, userStatuses } from '../../domain/identity/model.ts';
import type { UserFilters } from '../../domain/identity/ports.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { itemReader, orNull, shapeReader } from './stored-items.ts';
import { db, putWithUniqueClaim, queryPage, setFieldsCommand, table, writeOrRefuse } from './table.ts';

export const userKeys = {
  user: (userId: string) => ({ pk: `USER#${userId}`, sk: 'USER' }),
  emailClaim: (normalizedEmail: string) => ({ pk: `USER_EMAIL#${normalizedEmail}`, sk: 'USER_EMAIL' }),
  byTenant: (tenantId: string | null) => (tenantId ? `TENANT#${tenantId}#USERS` : 'PLATFORM#USERS'),
  all: 'USERS',
  order: (user: Pick<User, 'created_at' | 'user_id'>) => `${user.created_at}#${user.user_id}`,
};

export const toUser = /* @__PURE__ */ itemReader<User>('User', () => ({
  user_id: z.string(),
  email: z.string(),
  external_id: orNull(z.string()),
  role: z.enum(roles),
  status: z.enum(userStatuses),
  tenant_id: orNull(z.string()),
  tenant_name: orNull(z.string()),
  tenant_slug: orNull(z.string()),
  password_hash: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
}));

/** The claim that makes an email address unique names its user. */
const toEmailClaim = /* @__PURE__ */ shapeReader('UserEmail', () => ({ user_id: z.string() }));

export async function getUser(userId: string): Promise<User | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: userKeys.user(userId), ConsistentRead: true }),
  );
  return result.Item ? toUser(result.Item) : null;
}

function userItem(user: User) {
  return {
    ...userKeys.user(user.user_id),
    entity: 'User',
    gsi1pk: userKeys.byTenant(user.tenant_id),
    gsi1sk: userKeys.order(user),
    gsi2pk: userKeys.all,
    gsi2sk: userKeys.order(user),
    ...user,
  };
}

export async function findUserIdByEmail(email: string): Promise<string | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: userKeys.emailClaim(normalizeEmail(email)), ConsistentRead: true }),
  );
  return result.Item ? toEmailClaim(result.Item).user_id : null;
}

function filterOf(filters: UserFilters) {
  const clauses: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filters.role) {
    clauses.push('#role = :role');
    names['#role'] = 'role';
    values[':role'] = filters.role;
  }
  if (filters.status) {
    clauses.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = filters.status;
  }
  return clauses.length > 0 ? { expression: clauses.join(' AND '), names, values } : undefined;
}

export async function listUsersOfTenant(
  tenantId: string | null,
  filters: UserFilters,
  page: PageRequest,
): Promise<Page<User>> {
  return queryPage({ index: 'gsi1', partition: userKeys.byTenant(tenantId), filter: filterOf(filters) }, page, toUser);
}

export async function listAllUsers(filters: UserFilters, page: PageRequest): Promise<Page<User>> {
  return queryPage({ index: 'gsi2', partition: userKeys.all, filter: filterOf(filters) }, page, toUser);
}

/** The email claim and the user are written together: of two creators of one address, one wins. */
export async function createUser(user: User): Promise<void> {
  const claim = { ...userKeys.emailClaim(normalizeEmail(user.email)), entity: 'UserEmail', user_id: user.user_id };
  if (!(await putWithUniqueClaim(claim, userItem(user)))) throw conflict('A user with this email already exists');
}

export async function updateUser(
  userId: string,
  changes: Partial<Pick<User, 'role' | 'status' | 'external_id'>>,
  now: Date,
): Promise<User> {
  const result = await writeOrRefuse(
    db.send(
      new UpdateCommand({
        ...setFieldsCommand(userKeys.user(userId), { ...changes, updated_at: now.toISOString() }),
        ReturnValues: 'ALL_NEW',
      }),
    ),
    () => notFound('User'),
  );
  return toUser(result.Attributes ?? {});
}
