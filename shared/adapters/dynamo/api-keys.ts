/**
 * API keys. Two items per key, written together:
 *   pk USER#<user_id>   sk API_KEY#<api_key_id>   the key as listed under its user (strongly consistent)
 *   pk API_KEY#<sha256> sk API_KEY                the lookup that authentication reads
 * The bootstrap key (ADMIN_API_KEY / the stack's secret) has only the lookup item, with user_id null,
 * and a pointer item (pk BOOTSTRAP_KEY) naming its current hash so that a new bootstrap key retires the old.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { roles } from '../../domain/authorization.ts';
import { notFound } from '../../domain/errors.ts';
import type { ApiKeyRecord } from '../../domain/identity/model.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import { apiKeyKeys } from './api-key-items.ts';
import { itemReader, orNull, shapeReader } from './stored-items.ts';
import { conditionHeld, db, isConditionFailure, queryAll, queryPage, table, writeOrRefuse } from './table.ts';

type StoredKey = ApiKeyRecord & { pk: string; sk: string; entity: string };

const toRecord = /* @__PURE__ */ itemReader<ApiKeyRecord>('ApiKey', () => ({
  api_key_id: z.string(),
  user_id: orNull(z.string()),
  tenant_id: orNull(z.string()),
  role: orNull(z.enum(roles)),
  name: z.string(),
  prefix: z.string(),
  hash: z.string(),
  created_at: z.string(),
  last_used_at: orNull(z.string()),
}));

/** The bootstrap key's pointer: which hash is the bootstrap key now. */
const toBootstrapPointer = /* @__PURE__ */ shapeReader('BootstrapKey', () => ({ hash: z.string() }));

export async function findApiKeyByHash(hash: string): Promise<ApiKeyRecord | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: apiKeyKeys.lookup(hash), ConsistentRead: true }),
  );
  return result.Item ? toRecord(result.Item) : null;
}

export async function touchApiKey(key: ApiKeyRecord, now: Date): Promise<void> {
  const at = now.toISOString();
  const update = (Key: Record<string, string>) =>
    db
      .send(
        new UpdateCommand({
          TableName: table(),
          Key,
          UpdateExpression: 'SET last_used_at = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': at },
        }),
      )
      .catch((error: unknown) => {
        // A key revoked between authentication and this write: nothing to record.
        if (!isConditionFailure(error)) throw error;
      });
  await Promise.all([
    update(apiKeyKeys.lookup(key.hash)),
    key.user_id ? update(apiKeyKeys.ofUser(key.user_id, key.api_key_id)) : Promise.resolve(),
  ]);
}

export async function createApiKey(record: ApiKeyRecord & { user_id: string }): Promise<void> {
  const item = (keys: { pk: string; sk: string }): StoredKey => ({ ...keys, entity: 'ApiKey', ...record });
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table(), Item: item(apiKeyKeys.ofUser(record.user_id, record.api_key_id)) } },
        {
          Put: {
            TableName: table(),
            Item: item(apiKeyKeys.lookup(record.hash)),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
}

export async function listApiKeysByUser(userId: string, page: PageRequest): Promise<Page<ApiKeyRecord>> {
  return queryPage({ partition: apiKeyKeys.userPartition(userId), sortBeginsWith: 'API_KEY#' }, page, toRecord);
}

export async function countApiKeysByUser(userId: string): Promise<number> {
  const items = await queryAll({ partition: apiKeyKeys.userPartition(userId), sortBeginsWith: 'API_KEY#' }, toRecord);
  return items.length;
}

export async function getApiKeyOfUser(userId: string, apiKeyId: string): Promise<ApiKeyRecord | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: apiKeyKeys.ofUser(userId, apiKeyId), ConsistentRead: true }),
  );
  return result.Item ? toRecord(result.Item) : null;
}

/** Removes both items at once: the key stops working on the next request. */
export async function revokeApiKey(userId: string, apiKeyId: string): Promise<void> {
  const key = await getApiKeyOfUser(userId, apiKeyId);
  if (!key) throw notFound('API key');
  await writeOrRefuse(
    db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: table(),
              Key: apiKeyKeys.ofUser(userId, apiKeyId),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Delete: { TableName: table(), Key: apiKeyKeys.lookup(key.hash) } },
        ],
      }),
    ),
    () => notFound('API key'),
  );
}

/**
 * Makes `hash` the bootstrap key's hash, retiring a previous bootstrap key. Idempotent: the installer's
 * custom resource calls it when the stack's resource is created or its properties change (at a
 * deploy, or a local start: lib/constructs/bootstrap-key.ts), the rotation function when a key is
 * rotated in.
 *
 * The record names its role, PlatformAdmin: authentication takes a key without a user for a
 * PlatformAdmin only when it says so (shared/domain/identity/authenticate.ts). A bootstrap key
 * installed by an earlier version has no role; installing the same key again gives it one. Until
 * then (a deployment not yet deployed, or a local store not yet started, with this version) such a
 * key is refused, 401; the installation's properties name the record's form so that the first
 * deploy or start of this version installs the key again.
 */
export async function installBootstrapKey(hash: string, prefix: string, now = new Date()): Promise<void> {
  const pointer = await db.send(
    new GetCommand({ TableName: table(), Key: apiKeyKeys.bootstrapPointer, ConsistentRead: true }),
  );
  const previous = pointer.Item ? toBootstrapPointer(pointer.Item).hash : undefined;
  if (previous === hash) {
    await giveBootstrapRole(hash);
    return;
  }
  const record: ApiKeyRecord = {
    api_key_id: randomUUID(),
    user_id: null,
    role: 'PlatformAdmin',
    name: 'bootstrap',
    prefix,
    hash,
    created_at: now.toISOString(),
    last_used_at: null,
  };
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: table(), Item: { ...apiKeyKeys.lookup(hash), entity: 'ApiKey', ...record } } },
        {
          Put: {
            TableName: table(),
            Item: { ...apiKeyKeys.bootstrapPointer, entity: 'BootstrapKey', hash, updated_at: record.created_at },
          },
        },
        ...(previous ? [{ Delete: { TableName: table(), Key: apiKeyKeys.lookup(previous) } }] : []),
      ],
    }),
  );
}

/**
 * The installed bootstrap key's record, written by an earlier version without a role, is given its
 * role. Only a record without a user or a tenant is changed (the bootstrap key's form), and only
 * while it has no role: nothing else is made a PlatformAdmin, and a record already right is not written.
 */
async function giveBootstrapRole(hash: string): Promise<void> {
  await conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: table(),
        Key: apiKeyKeys.lookup(hash),
        UpdateExpression: 'SET #role = :role',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(#role) OR attribute_type(#role, :null)) AND ' +
          '(attribute_not_exists(tenant_id) OR attribute_type(tenant_id, :null)) AND attribute_type(user_id, :null)',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':role': 'PlatformAdmin', ':null': 'NULL' },
      }),
    ),
  );
}
