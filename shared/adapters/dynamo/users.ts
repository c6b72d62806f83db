/**
 * Users.
 *   pk USER#<user_id>            sk USER         the user
 *     gsi1pk TENANT#<tenant_id>#USERS (PLATFORM#USERS for PlatformAdmins)  gsi1sk <created_at>#<user_id>
 *     gsi2pk USERS                                                          gsi2sk <created_at>#<user_id>
 *   pk USER_EMAIL#<lowercased>   sk USER_EMAIL   the email claim that makes addresses unique
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { roles } from '../../domain/authorization.ts';
import { conflict, notFound } from '../../domain/errors.ts';
import {
  isActiveTenantAdmin,
  lastTenantAdmin,
  mayRemoveTenantAdmin,
  normalizeEmail,
  type User,
  type UserChanges,
  userStatuses,
} from '../../domain/identity/model.ts';
import type { UserFilters } from '../../domain/identity/ports.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { itemReader, orNull, shapeReader } from './stored-items.ts';
import {
  db,
  isConditionFailure,
  putWithUniqueClaim,
  queryAll,
  queryPage,
  setFieldsCommand,
  table,
  transactionRefusal,
} from './table.ts';

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

/**
 * Changes a user. A change that may take the TenantAdmin role or the Active status from the user
 * (mayRemoveTenantAdmin) is written only on the condition that decided it: the user is not an active
 * TenantAdmin (then nothing is removed), or it is and another active TenantAdmin of the tenant, a
 * witness, still is one, checked in the same transaction. Two admins demoting (or deactivating) each
 * other at once each name the other as witness: the transactions are serialisable, so the second
 * finds its witness gone and is refused, and the tenant keeps one.
 *
 * Why witnesses rather than a count of a tenant's active admins: the truth is the users' own items,
 * so there is nothing to compute for tenants created before this rule, nothing that may drift from
 * the users (a count made once from an eventually consistent index could be wrong for good), and
 * creating a TenantAdmin, promoting or reactivating one need no extra write (they only add admins).
 * The witnesses are found through the tenant's user index, which is eventually consistent: an admin
 * made a moment ago may not be listed yet (the change is then refused, 409, and may be asked again),
 * and one listed that no longer is one fails its check (the next is tried). A refusal may thus be
 * early, never a wrong acceptance: the condition on the witness is read strongly, in the write.
 */
export async function updateUser(userId: string, changes: UserChanges, now: Date): Promise<User> {
  const fields = { ...changes, updated_at: now.toISOString() };
  if (!mayRemoveTenantAdmin(changes)) {
    const written = await setUser(userId, fields, { expression: 'attribute_exists(pk)' });
    if (!written) throw notFound('User');
    return written;
  }
  for (let attempt = 1; attempt <= 5; attempt++) {
    const user = await getUser(userId);
    if (!user) throw notFound('User');
    if (!isActiveTenantAdmin(user)) {
      const written = await setUser(userId, fields, {
        expression: 'attribute_exists(pk) AND NOT (#role = :admin AND #status = :active)',
        ...adminCondition,
      });
      if (written) return written;
      // Made an active TenantAdmin since it was read (or gone): decided again.
      continue;
    }
    const witnesses = await queryAll(
      {
        index: 'gsi1',
        partition: userKeys.byTenant(user.tenant_id),
        filter: filterOf({ role: 'TenantAdmin', status: 'Active' }),
      },
      toUser,
    );
    let userMoved = false;
    for (const witness of witnesses.filter((other) => other.user_id !== userId).slice(0, 10)) {
      const refusal = await transactionRefusal(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: setFieldsCommand(userKeys.user(userId), fields, {
                expression: '#role = :admin AND #status = :active',
                ...adminCondition,
              }),
            },
            {
              ConditionCheck: {
                TableName: table(),
                Key: userKeys.user(witness.user_id),
                ConditionExpression: '#role = :admin AND #status = :active AND tenant_id = :tenant',
                ExpressionAttributeNames: adminCondition.names,
                ExpressionAttributeValues: { ...adminCondition.values, ':tenant': user.tenant_id },
              },
            },
          ],
        }),
      );
      if (refusal === null) {
        const changed = await getUser(userId);
        if (!changed) throw notFound('User');
        return changed;
      }
      // The user is no active TenantAdmin any more (changed since read): decided again. Otherwise the
      // witness is none now: the next one is tried.
      if (refusal[0] === 'ConditionalCheckFailed') {
        userMoved = true;
        break;
      }
    }
    if (!userMoved) throw lastTenantAdmin();
  }
  throw conflict('The user changed while this change was made; try again');
}

const adminCondition = {
  names: { '#role': 'role', '#status': 'status' },
  values: { ':admin': 'TenantAdmin', ':active': 'Active' },
};

/** SETs the fields under the condition: the user as changed, or null when the condition did not hold. */
async function setUser(
  userId: string,
  fields: Record<string, unknown>,
  condition: Parameters<typeof setFieldsCommand>[2],
): Promise<User | null> {
  try {
    const result = await db.send(
      new UpdateCommand({ ...setFieldsCommand(userKeys.user(userId), fields, condition), ReturnValues: 'ALL_NEW' }),
    );
    return toUser(result.Attributes ?? {});
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}
