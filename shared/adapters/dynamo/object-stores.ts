/**
 * Object stores, under their tenant, and the claims on the places in shared buckets that stores
 * reached with shared credentials hold (shared/domain/tenants/store-claims.ts).
 *   pk TENANT#<tenant_id>                 sk OBJECT_STORE#<object_store_id>
 *   pk STORE_PATH#<bucket>/<path>         sk STORE_PATH        owner, beneath, version
 * Option values are held only sealed (options_sealed); option_keys lists their names. place_version
 * counts changes of its place and first_commits its data sets' first recorded commits, so that the
 * two never race past each other (replaceObjectStoreOptions, data-sets.ts recordFirstDataSetVersion).
 */
import {
  GetCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { notFound } from '../../domain/errors.ts';
import type { Page, PageRequest } from '../../domain/pagination.ts';
import type { StoredObjectStore } from '../../domain/tenants/object-stores.ts';
import type { StorePathClaim } from '../../domain/tenants/store-claims.ts';
import { tenantCache } from './ingest-cache.ts';
import { itemReader, orNull, shapeReader } from './stored-items.ts';
import {
  besideTransactions,
  cancellationCodes,
  db,
  isConditionFailure,
  isTransactionConflict,
  queryPage,
  table,
  transactionHeld,
} from './table.ts';
import { tenantKeys } from './tenants.ts';

export const objectStoreKeys = {
  store: (tenantId: string, objectStoreId: string) => ({
    pk: `TENANT#${tenantId}`,
    sk: `OBJECT_STORE#${objectStoreId}`,
  }),
  partition: (tenantId: string) => `TENANT#${tenantId}`,
  sortPrefix: 'OBJECT_STORE#',
  /** A path is at most 512 characters (parseBaseUrl): the key stays far below DynamoDB's 2,048 bytes. */
  pathClaim: (bucket: string, path: string) => ({ pk: `STORE_PATH#${bucket}/${path}`, sk: 'STORE_PATH' }),
};

const toStore = /* @__PURE__ */ itemReader<StoredObjectStore>('ObjectStore', () => ({
  object_store_id: z.string(),
  tenant_id: z.string(),
  name: z.string(),
  base_url: z.string(),
  option_keys: z.array(z.string()).default(() => []),
  options_sealed: z.string(),
  conditional_writes: z.object({ updated_at: z.string(), supported: z.boolean() }).optional(),
  place_version: z.number().optional(),
  first_commits: z.number().optional(),
  created_at: z.string(),
  updated_at: z.string(),
}));

/** A place's claim: who owns it, who owns a place beneath it, and its version (absent owners are none). */
const toClaim = /* @__PURE__ */ shapeReader('StorePathClaim', () => ({
  owner: orNull(z.string()),
  beneath: orNull(z.string()),
  version: z.number(),
}));

export async function getStorePathClaims(bucket: string, paths: string[]): Promise<StorePathClaim[]> {
  // One serialisable read of at most 17 items (the bucket and 16 segments), far below the 100 a transaction takes.
  const result = await db.send(
    new TransactGetCommand({
      TransactItems: paths.map((path) => ({
        Get: { TableName: table(), Key: objectStoreKeys.pathClaim(bucket, path) },
      })),
    }),
  );
  return paths.map((path, i) => {
    const item = result.Responses?.[i]?.Item;
    // No item: nobody has claimed the place yet (version 0).
    const claim = item ? toClaim(item) : { owner: null, beneath: null, version: 0 };
    return { bucket, path, ...claim };
  });
}

/** Each claim written only if it is still at the version it was read at (one less than it now carries). */
function claimWrites(claims: StorePathClaim[]) {
  return claims.map((claim) => ({
    Put: {
      TableName: table(),
      Item: {
        ...objectStoreKeys.pathClaim(claim.bucket, claim.path),
        entity: 'StorePathClaim',
        bucket: claim.bucket,
        path: claim.path,
        ...(claim.owner === null ? {} : { owner: claim.owner }),
        ...(claim.beneath === null ? {} : { beneath: claim.beneath }),
        version: claim.version,
      },
      ConditionExpression: claim.version === 1 ? 'attribute_not_exists(pk)' : 'version = :read',
      ...(claim.version === 1 ? {} : { ExpressionAttributeValues: { ':read': claim.version - 1 } }),
    },
  }));
}

export async function getObjectStore(tenantId: string, objectStoreId: string): Promise<StoredObjectStore | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: objectStoreKeys.store(tenantId, objectStoreId), ConsistentRead: true }),
  );
  return result.Item ? toStore(result.Item) : null;
}

/** Records what a probe found about the store's conditional writes, for the options it was made with. */
export async function recordConditionalWrites(store: StoredObjectStore, supported: boolean): Promise<void> {
  try {
    const record = new UpdateCommand({
      TableName: table(),
      Key: objectStoreKeys.store(store.tenant_id, store.object_store_id),
      UpdateExpression: 'SET conditional_writes = :found',
      ConditionExpression: 'updated_at = :updated',
      ExpressionAttributeValues: {
        ':found': { updated_at: store.updated_at, supported },
        ':updated': store.updated_at,
      },
    });
    await besideTransactions(() => db.send(record));
  } catch (error) {
    // The options changed meanwhile: the next commit probes the store as it is now.
    if (!isConditionFailure(error)) throw error;
  }
}

export async function listObjectStores(tenantId: string, page: PageRequest): Promise<Page<StoredObjectStore>> {
  return queryPage(
    { partition: objectStoreKeys.partition(tenantId), sortBeginsWith: objectStoreKeys.sortPrefix },
    page,
    toStore,
  );
}

/** Counted over every page: a page stops at 1 MB, which about 18 stores with long options fill. */
export async function countObjectStores(tenantId: string): Promise<number> {
  let count = 0;
  let from: Record<string, unknown> | undefined;
  do {
    const result = await db.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': objectStoreKeys.partition(tenantId),
          ':prefix': objectStoreKeys.sortPrefix,
        },
        Select: 'COUNT',
        ConsistentRead: true,
        ExclusiveStartKey: from,
      }),
    );
    count += result.Count ?? 0;
    from = result.LastEvaluatedKey;
  } while (from);
  return count;
}

export async function createObjectStore(store: StoredObjectStore, claims: StorePathClaim[]): Promise<boolean> {
  const written = await transactionHeld(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: {
              ...objectStoreKeys.store(store.tenant_id, store.object_store_id),
              entity: 'ObjectStore',
              ...store,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...claimWrites(claims),
      ],
    }),
  );
  if (!written) return false;
  // The first store becomes the default; of two concurrent first registrations, the first write wins.
  await db
    .send(
      new UpdateCommand({
        TableName: table(),
        Key: tenantKeys.tenant(store.tenant_id),
        UpdateExpression: 'SET default_object_store_id = :id, updated_at = :at',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(default_object_store_id) OR attribute_type(default_object_store_id, :null))',
        ExpressionAttributeValues: { ':id': store.object_store_id, ':at': store.created_at, ':null': 'NULL' },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  tenantCache.forget(store.tenant_id);
  return true;
}

export async function setDefaultObjectStore(tenantId: string, objectStoreId: string, now: Date): Promise<void> {
  // A first commit's transaction on the store's item at that moment is waited out, not answered 404.
  const held = await transactionHeld(
    new TransactWriteCommand({
      TransactItems: [
        {
          ConditionCheck: {
            TableName: table(),
            Key: objectStoreKeys.store(tenantId, objectStoreId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        {
          Update: {
            TableName: table(),
            Key: tenantKeys.tenant(tenantId),
            UpdateExpression: 'SET default_object_store_id = :id, updated_at = :at',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':id': objectStoreId, ':at': now.toISOString() },
          },
        },
      ],
    }),
  );
  if (!held) throw notFound('Object store');
}

/**
 * Replaces a store's options. When its place moves (`moving`), the store's place_version goes up, and
 * only while no data set's first commit was recorded in it since the caller checked for committed
 * tables (its first_commits still `moving.firstCommits`): else 'tableCommitted', and nothing changes.
 */
export async function replaceObjectStoreOptions(
  tenantId: string,
  objectStoreId: string,
  optionKeys: string[],
  sealed: string,
  now: Date,
  claims: StorePathClaim[],
  moving?: { firstCommits: number },
): Promise<'replaced' | 'claimMoved' | 'tableCommitted'> {
  const update = {
    TableName: table(),
    Key: objectStoreKeys.store(tenantId, objectStoreId),
    UpdateExpression: `SET option_keys = :keys, options_sealed = :sealed, updated_at = :at${moving ? ', place_version = if_not_exists(place_version, :zero) + :one' : ''}`,
    ConditionExpression: moving
      ? 'attribute_exists(pk) AND (attribute_not_exists(first_commits) OR first_commits = :seen)'
      : 'attribute_exists(pk)',
    ExpressionAttributeValues: {
      ':keys': optionKeys,
      ':sealed': sealed,
      ':at': now.toISOString(),
      ...(moving ? { ':zero': 0, ':one': 1, ':seen': moving.firstCommits } : {}),
    },
  };
  // The store's own condition failed: it is gone, or a first commit was recorded since the check.
  const refused = async () => {
    if (!moving || !(await getObjectStore(tenantId, objectStoreId))) throw notFound('Object store');
    return 'tableCommitted' as const;
  };
  try {
    if (claims.length === 0) await besideTransactions(() => db.send(new UpdateCommand(update)));
    else await db.send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...claimWrites(claims)] }));
    return 'replaced';
  } catch (error) {
    if (claims.length === 0) {
      if (!isConditionFailure(error)) throw error;
      return refused();
    }
    if (!isTransactionConflict(error)) throw error;
    // A claim's condition failing means it moved (decide again).
    if (cancellationCodes(error)[0] === 'ConditionalCheckFailed') return refused();
    return 'claimMoved';
  }
}
