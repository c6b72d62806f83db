/**
 * Store boundaries (CONTRACT §3): where the platform reaches stores with credentials tenants share —
 * its own role on a tenant bucket, or no credentials at a custom endpoint — two tenants' stores never
 * overlap, compared by path segment. The use cases run in process through the in-memory ports, whose
 * claims are written at the versions read, as the DynamoDB transaction writes them.
 */
import { describe, expect, it } from 'vitest';
import { tableLocation } from '#shared/adapters/s3/tenant-stores.ts';
import type { ObjectStoreOptions } from '#shared/domain/tenants/object-stores.ts';
import type { StoreConnection } from '#shared/domain/tenants/store-access.ts';
import { claimedPaths } from '#shared/domain/tenants/store-claims.ts';
import { createTenant, registerObjectStore, updateObjectStoreOptions } from '#shared/domain/tenants/use-cases.ts';
import { memoryStore, platformAdmin } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';

const platformRole: ObjectStoreOptions = { region: 'eu-west-1' };
const anonymous: ObjectStoreOptions = { endpoint: 'http://127.0.0.1:4569' };
const ownKeys: ObjectStoreOptions = { region: 'eu-west-1', access_key_id: 'AKIAOWNKEY', secret_access_key: 's' };

async function twoTenants() {
  const store = memoryStore();
  const first = (await createTenant(store, { name: 'First' })).tenant_id;
  const second = (await createTenant(store, { name: 'Second' })).tenant_id;
  const register = (tenantId: string, base_url: string, options: ObjectStoreOptions = platformRole) =>
    registerObjectStore(store, platformAdmin, tenantId, { base_url, name: 'store', options });
  return { store, first, second, register };
}

describe('the paths a store claims', () => {
  it('are the bucket, each segment above the prefix, and the prefix', () => {
    expect(claimedPaths('')).toEqual(['']);
    expect(claimedPaths('tenants/t-abc/raw')).toEqual(['', 'tenants', 'tenants/t-abc', 'tenants/t-abc/raw']);
  });
});

describe('a store over another tenant’s store', () => {
  // The first tenant holds s3://lake/tenants/t-abc with the platform's role; the second tries these.
  const cases: [string, string, ObjectStoreOptions, 'CONFLICT' | 'created'][] = [
    ['the same prefix', 's3://lake/tenants/t-abc', platformRole, 'CONFLICT'],
    ['the same prefix, with a trailing slash', 's3://lake/tenants/t-abc/', platformRole, 'CONFLICT'],
    ['a prefix inside it', 's3://lake/tenants/t-abc/raw', platformRole, 'CONFLICT'],
    ['a prefix above it', 's3://lake/tenants', platformRole, 'CONFLICT'],
    ['the whole bucket', 's3://lake', platformRole, 'CONFLICT'],
    ['a prefix inside it, reached anonymously', 's3://lake/tenants/t-abc/raw', anonymous, 'CONFLICT'],
    ['a sibling whose name extends it', 's3://lake/tenants/t-abcx', platformRole, 'created'],
    ['a sibling whose name it extends', 's3://lake/tenants/t-ab', platformRole, 'created'],
    ['another prefix of the bucket', 's3://lake/other', platformRole, 'created'],
    ['the same prefix in another bucket', 's3://lake-two/tenants/t-abc', platformRole, 'created'],
    ['the same prefix with the tenant’s own keys', 's3://lake/tenants/t-abc', ownKeys, 'created'],
  ];
  it.for(cases)('%s (%s): %s', async ([, baseUrl, options, expected], { expect }) => {
    // Prepare
    const { store, first, second, register } = await twoTenants();
    await register(first, 's3://lake/tenants/t-abc');
    const claimsBefore = structuredClone([...store.state.pathClaims.entries()]);
    // Act
    const outcome = await register(second, baseUrl, options).then(
      () => 'created',
      async (error: unknown) => (await refusal(Promise.reject(error))).code,
    );
    // Assess: a refusal leaves nothing behind, neither a store nor a claim.
    expect(outcome).toBe(expected);
    const secondStores = [...store.state.stores.values()].filter((kept) => kept.tenant_id === second);
    expect(secondStores.length).toBe(expected === 'created' ? 1 : 0);
    if (expected === 'CONFLICT') expect([...store.state.pathClaims.entries()]).toEqual(claimsBefore);
  });

  it('is allowed within one tenant: its own stores may nest', async () => {
    const { first, register } = await twoTenants();
    await register(first, 's3://lake/tenants/t-abc');
    await register(first, 's3://lake/tenants/t-abc/raw');
    await register(first, 's3://lake');
  });

  it('is refused under a bucket where two tenants’ stores already sit', async () => {
    const { first, second, register } = await twoTenants();
    await register(first, 's3://lake/a/one');
    await register(second, 's3://lake/a/two');
    expect(await refusal(register(first, 's3://lake/a'))).toEqual({ code: 'CONFLICT', paths: [] });
    expect(await refusal(register(second, 's3://lake'))).toEqual({ code: 'CONFLICT', paths: [] });
  });

  it('is refused when a store’s new options make it shared, and its options stay as they were', async () => {
    // Prepare: the second tenant reaches the first's prefix with its own keys (its credentials decide there).
    const { store, first, second, register } = await twoTenants();
    await register(first, 's3://lake/tenants/t-abc');
    const own = await register(second, 's3://lake/tenants/t-abc/raw', ownKeys);
    const sealed = store.state.stores.get(own.object_store_id)?.options_sealed;
    // Act: it drops its keys, so the platform's own role would reach the store.
    const refused = await refusal(
      updateObjectStoreOptions(store, platformAdmin, second, {
        object_store_id: own.object_store_id,
        options: platformRole,
      }),
    );
    // Assess
    expect(refused).toEqual({ code: 'CONFLICT', paths: [] });
    expect(store.state.stores.get(own.object_store_id)?.options_sealed).toBe(sealed);
  });
});

describe('two registrations at the same moment', () => {
  it('of overlapping stores: exactly one succeeds, the other is refused after deciding again', async () => {
    // Prepare: both read the claims before either writes (a barrier in front of the reads).
    const { store, first, second } = await twoTenants();
    let waiting: (() => void)[] = [];
    let reads = 0;
    const read = store.getStorePathClaims;
    const deps = {
      ...store,
      async getStorePathClaims(bucket: string, paths: string[]) {
        reads++;
        if (reads <= 2) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === 2) {
              for (const release of waiting) release();
              waiting = [];
            }
          });
        }
        return read(bucket, paths);
      },
    };
    // Act
    const outcomes = await Promise.allSettled([
      registerObjectStore(deps, platformAdmin, first, {
        base_url: 's3://lake/shared',
        name: 'a',
        options: platformRole,
      }),
      registerObjectStore(deps, platformAdmin, second, {
        base_url: 's3://lake/shared/inner',
        name: 'b',
        options: platformRole,
      }),
    ]);
    // Assess: one store; the other registration read again (three reads in all) and found the overlap.
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = outcomes.find((outcome) => outcome.status === 'rejected');
    expect(await refusal(Promise.reject(rejected?.reason))).toEqual({ code: 'CONFLICT', paths: [] });
    expect(store.state.stores.size).toBe(1);
    expect(reads).toBe(3);
  });

  it('of stores apart: both succeed, whichever writes second deciding again', async () => {
    const { store, first, second, register } = await twoTenants();
    await Promise.all([register(first, 's3://lake/t-abc'), register(second, 's3://lake/t-abcx')]);
    expect(store.state.stores.size).toBe(2);
    expect(store.state.pathClaims.get('lake/')).toMatchObject({ owner: null, beneath: '*' });
  });
});

describe('many registrations in one bucket at the same moment', () => {
  it('of stores apart all succeed: each writes the bucket claim, and those that meet another take turns', async () => {
    // Prepare: twelve tenants read the claims before any writes (a barrier in front of the first reads).
    const store = memoryStore();
    const tenants = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => (await createTenant(store, { name: `Tenant ${i}` })).tenant_id),
    );
    const waiting: (() => void)[] = [];
    let reads = 0;
    const read = store.getStorePathClaims;
    const deps = {
      ...store,
      async getStorePathClaims(bucket: string, paths: string[]) {
        if (++reads <= tenants.length)
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === tenants.length) for (const release of waiting.splice(0)) release();
          });
        return read(bucket, paths);
      },
    };
    // Act
    const outcomes = await Promise.allSettled(
      tenants.map((tenantId, i) =>
        registerObjectStore(deps, platformAdmin, tenantId, {
          base_url: `s3://lake/t-${i}`,
          name: 's',
          options: platformRole,
        }),
      ),
    );
    // Assess
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    expect(store.state.stores.size).toBe(12);
    expect(store.state.pathClaims.get('lake/')).toMatchObject({ owner: null, beneath: '*' });
  });
});

describe('a table location outside its store', () => {
  // Where no session policy can narrow the credentials (keys, none at all), the adapter itself refuses.
  const connection = (prefix: string): StoreConnection => ({
    cacheKey: `boundary-${prefix}`,
    tenantId: 't',
    objectStoreId: 's',
    scope: { bucket: 'lake', prefix, access: 'readWrite' },
    region: 'eu-west-1',
    endpoint: undefined,
    forcePathStyle: undefined,
    credentials: { kind: 'keys', accessKeyId: 'AKIATENANT', secretAccessKey: 's', sessionToken: undefined },
    sessionName: 'tributary-t',
  });
  it.each([
    ['tenants/t-abc', 's3://lake/tenants/t-abc/datasets/1', true],
    ['tenants/t-abc', 's3://lake/tenants/t-abc', true],
    ['tenants/t-abc', 's3://lake/tenants/t-abcx/datasets/1', false],
    ['tenants/t-abc', 's3://lake/tenants', false],
    ['tenants/t-abc', 's3://lake-two/tenants/t-abc/datasets/1', false],
    ['', 's3://lake/anything/below', true],
  ])('a store at %j reaches %s: %s', async (prefix, location, reached) => {
    const outcome = await tableLocation(connection(prefix), location).then(
      () => true,
      (error: Error) => (/lies outside object store/.test(error.message) ? false : error),
    );
    expect(outcome).toBe(reached);
  });
});
