/**
 * A store's place (endpoint, region, force_path_style) decides where the tables written to it are: a
 * data set's storage_location is fixed at its first write. Changing that place while a table is in the
 * store would leave the table behind, so it is refused (409, nothing changes); credentials may change.
 * The use case runs in process through the in-memory ports (test/support/memory.ts).
 */
import { describe, expect, it } from 'vitest';
import { newDataSet } from '#shared/domain/datasets/model.ts';
import { DomainError } from '#shared/domain/errors.ts';
import type { ObjectStoreOptions } from '#shared/domain/tenants/object-stores.ts';
import { createTenant, registerObjectStore, updateObjectStoreOptions } from '#shared/domain/tenants/use-cases.ts';
import { memoryStore, platformAdmin } from '../support/memory.ts';

const registered = new Date('2026-11-21T10:00:00.000Z');
const updated = new Date('2026-11-21T11:00:00.000Z');
const dataSetId = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';

/**
 * A tenant with one store at `options`, and a data set whose table was committed there (`committed`),
 * or whose first write fixed it there and then failed (`never committed`), or none.
 */
async function storeHolding(options: ObjectStoreOptions, table: 'committed' | 'never committed' | null) {
  const store = memoryStore();
  const tenant = await createTenant(store, { name: 'Acme' }, registered);
  const kept = await registerObjectStore(
    store,
    platformAdmin,
    tenant.tenant_id,
    { base_url: 's3://lake/acme', name: 'lake', options },
    registered,
  );
  if (table) {
    await store.createDataSet({
      ...newDataSet(
        {
          data_set_id: dataSetId,
          tenant_id: tenant.tenant_id,
          tenant_slug: 'acme',
          name: 'events',
          origin: {
            type: 'Webhook',
            connection_id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
            source_id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
          },
          schema_json: { type: 'struct', fields: [] },
        },
        registered.toISOString(),
      ),
      object_store_id: kept.object_store_id,
      storage_location: `s3://lake/acme/datasets/${dataSetId}`,
      ...(table === 'committed' ? { status: 'Active' as const, version: 0 } : {}),
    });
  }
  const update = (next: ObjectStoreOptions) =>
    updateObjectStoreOptions(
      store,
      platformAdmin,
      tenant.tenant_id,
      { object_store_id: kept.object_store_id, options: next },
      updated,
    );
  const openOptions = async () => {
    const now = store.state.stores.get(kept.object_store_id);
    return {
      updated_at: now?.updated_at,
      options: JSON.parse(
        await store.secrets.open(
          now?.options_sealed ?? '',
          `object-store-options:${tenant.tenant_id}:${kept.object_store_id}`,
        ),
      ),
    };
  };
  return { update, openOptions, store, objectStoreId: kept.object_store_id };
}

async function outcomeOf(attempt: Promise<unknown>): Promise<{ code: string; message: string } | 'changed'> {
  try {
    await attempt;
    return 'changed';
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, message: error.message };
    throw error;
  }
}

const minio: ObjectStoreOptions = { endpoint: 'http://127.0.0.1:4569', force_path_style: 'true' };
const onAws: ObjectStoreOptions = { region: 'eu-west-1', access_key_id: 'AKIAACME1', secret_access_key: 'old' };

describe('changing the place of a store that holds a table', () => {
  const cases: [string, ObjectStoreOptions, ObjectStoreOptions, string][] = [
    ['another endpoint', minio, { endpoint: 'http://127.0.0.1:9000', force_path_style: 'true' }, 'endpoint'],
    ['no endpoint (AWS S3 instead)', minio, { region: 'eu-west-1', force_path_style: 'true' }, 'endpoint, region'],
    [
      'virtual-hosted addressing',
      minio,
      { endpoint: 'http://127.0.0.1:4569', force_path_style: 'false' },
      'force_path_style',
    ],
    ['another region', onAws, { region: 'us-east-2', access_key_id: 'AKIAACME1', secret_access_key: 'old' }, 'region'],
  ];
  it.for(cases)(
    'is refused with 409 for %s, naming the data set, and changes nothing',
    async ([, before, after, keys]) => {
      // Arrange
      const { update, openOptions } = await storeHolding(before, 'committed');
      // Act
      const outcome = await outcomeOf(update(after));
      // Assert
      expect(outcome).toEqual({
        code: 'CONFLICT',
        message: `Data sets have their tables in this object store (${dataSetId}): its ${keys} cannot change, as they decide where those tables are; register a new store for another place (credentials may change)`,
      });
      expect(await openOptions()).toEqual({ updated_at: '2026-11-21T10:00:00.000Z', options: before });
    },
  );
});

describe('changes a store that holds a table still takes', () => {
  const cases: [string, ObjectStoreOptions, ObjectStoreOptions][] = [
    ['new keys', onAws, { region: 'eu-west-1', access_key_id: 'AKIAACME2', secret_access_key: 'new' }],
    ['keys where there were none', minio, { ...minio, access_key_id: 'AKIAACME1', secret_access_key: 's' }],
    [
      'the same endpoint, written with a trailing slash',
      minio,
      { endpoint: 'http://127.0.0.1:4569/', force_path_style: 'true' },
    ],
  ];
  it.for(cases)('%s', async ([, before, after]) => {
    // Arrange
    const { update, openOptions } = await storeHolding(before, 'committed');
    // Act
    const outcome = await outcomeOf(update(after));
    // Assert
    expect(outcome).toBe('changed');
    expect(await openOptions()).toEqual({ updated_at: '2026-11-21T11:00:00.000Z', options: after });
  });
});

describe('changing the place of a store that holds no table', () => {
  it('is allowed: no table is left behind', async () => {
    // Arrange
    const { update, openOptions } = await storeHolding(minio, null);
    // Act
    const outcome = await outcomeOf(update({ endpoint: 'http://127.0.0.1:9000' }));
    // Assert
    expect(outcome).toBe('changed');
    expect(await openOptions()).toEqual({
      updated_at: '2026-11-21T11:00:00.000Z',
      options: { endpoint: 'http://127.0.0.1:9000' },
    });
  });

  it('is allowed while its data sets were never committed: a mistyped endpoint can be fixed, and the failed writes redriven', async () => {
    // Arrange: the first write fixed the data set in the store, and failed (the store did not answer).
    const { update, openOptions } = await storeHolding(minio, 'never committed');
    // Act
    const outcome = await outcomeOf(update({ endpoint: 'http://127.0.0.1:9000', force_path_style: 'true' }));
    // Assert
    expect(outcome).toBe('changed');
    expect(await openOptions()).toEqual({
      updated_at: '2026-11-21T11:00:00.000Z',
      options: { endpoint: 'http://127.0.0.1:9000', force_path_style: 'true' },
    });
  });
});

describe('a first commit recorded while the place changes', () => {
  it('holds the place: the change checked before that commit was recorded is refused with 409, and changes nothing', async () => {
    // Arrange: the data set's first write fixed it in the store; its commit is recorded just after
    // the change found no committed table (as the commit's transaction raises the store's first_commits).
    const { update, openOptions, store, objectStoreId } = await storeHolding(minio, 'never committed');
    const checked = store.dataSetsInStore.bind(store);
    let checks = 0;
    store.dataSetsInStore = async (...args) => {
      const found = await checked(...args);
      if (checks++ === 0) {
        const dataSet = store.state.dataSets.get(dataSetId);
        const kept = store.state.stores.get(objectStoreId);
        if (!dataSet || !kept) throw new Error('fixture missing');
        store.state.dataSets.set(dataSetId, { ...dataSet, version: 0, status: 'Active' });
        store.state.stores.set(objectStoreId, { ...kept, first_commits: 1 });
      }
      return found;
    };
    // Act
    const outcome = await outcomeOf(update({ endpoint: 'http://127.0.0.1:9000', force_path_style: 'true' }));
    // Assert
    expect(outcome).toEqual({
      code: 'CONFLICT',
      message: `Data sets have their tables in this object store (${dataSetId}): its endpoint cannot change, as they decide where those tables are; register a new store for another place (credentials may change)`,
    });
    expect(await openOptions()).toEqual({ updated_at: '2026-11-21T10:00:00.000Z', options: minio });
    expect(store.state.stores.get(objectStoreId)?.place_version).toBeUndefined();
  });
});
