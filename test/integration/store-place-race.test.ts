/**
 * A store's place (endpoint, region, addressing) and a data set's first commit in it, racing: the
 * change is made only while no table is committed there (409 otherwise), and a first commit is
 * recorded only while the store is still where it wrote. Each side's DynamoDB write is conditioned on
 * what the other writes (the store's place_version and first_commits), so whichever lands first, the
 * other is refused: a store never moves away from a table it holds. Driven here in this process
 * through the adapters, against the service's DynamoDB, at the two moments no API call can reach:
 * between a commit reading the store and recording its version, and between a change's check and
 * its write.
 */
import { describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook } from '../support/webhooks.ts';

const api = apiClient();

/**
 * A webhook's data set, its storage fixed in the tenant's store (as its first write does), never
 * committed; in a new tenant, or in `tenantId`'s store.
 */
async function dataSetInStore(tenantId?: string) {
  useServiceEnvironment();
  const { getDataSet } = await import('../../shared/adapters/dynamo/data-sets.ts');
  const { fixStorage } = await import('../../shared/adapters/table-storage.ts');
  const hook = await createWebhook(api, tenantId ? { tenantId, store: null } : {});
  const found = await getDataSet(hook.dataSetId);
  if (!found) throw new Error(`no data set ${hook.dataSetId}`);
  const dataSet = await fixStorage(found);
  if (!dataSet.object_store_id) throw new Error('the first write fixed no store');
  return { hook, dataSet, objectStoreId: dataSet.object_store_id };
}

/** The store's options changed through the API (what an admin does): its answer. */
async function moveStore(tenantId: string, objectStoreId: string, endpoint: string) {
  return api.post<{ code: string }>(`/api/tenants/${tenantId}/update-object-store-options`, {
    json: { object_store_id: objectStoreId, options: { endpoint } },
  });
}

describe('a data set’s first commit while its store moves', () => {
  it('is not recorded when the store moved after the commit read it; the next run records it at the new place', async () => {
    // Arrange: a run opened the table (the store as it was), then the store moved.
    const { hook, dataSet, objectStoreId } = await dataSetInStore();
    const { getDataSet, StorePlaceMoved } = await import('../../shared/adapters/dynamo/data-sets.ts');
    const { getObjectStore } = await import('../../shared/adapters/dynamo/object-stores.ts');
    const { openTable } = await import('../../shared/adapters/table-storage.ts');
    const stale = await openTable(dataSet);
    const endpoint = new URL(useEndpoint()).port;
    const moved = await moveStore(hook.tenantId, objectStoreId, `http://localhost:${endpoint}`);
    expect(moved.status, moved.text).toBe(204);
    // Act
    const recorded = stale.recordVersion(0);
    // Assert: refused, nothing recorded, the store's place where the change put it.
    await expect(recorded).rejects.toBeInstanceOf(StorePlaceMoved);
    expect((await getDataSet(hook.dataSetId))?.version).toBeNull();
    expect(await getObjectStore(hook.tenantId, objectStoreId)).toMatchObject({ place_version: 1 });
    // Act: the next run reads the store anew (not this instance's record of 2 s) and records its commit.
    await (await openTable(dataSet)).recordVersion(0);
    // Assert
    expect((await getDataSet(hook.dataSetId))?.version).toBe(0);
    expect(await getObjectStore(hook.tenantId, objectStoreId)).toMatchObject({ place_version: 1, first_commits: 1 });
    const again = await moveStore(hook.tenantId, objectStoreId, useEndpoint());
    expect([again.status, again.body.code]).toEqual([409, 'CONFLICT']);
  });

  it('sets table properties of a table never committed while its store moves: made again where the store is now', async () => {
    // Arrange: this instance read the store (a run opened the table), then the store moved.
    const { hook, dataSet, objectStoreId } = await dataSetInStore();
    const { getDataSet } = await import('../../shared/adapters/dynamo/data-sets.ts');
    const { getObjectStore } = await import('../../shared/adapters/dynamo/object-stores.ts');
    const { commitTableProperties, openTable } = await import('../../shared/adapters/table-storage.ts');
    await openTable(dataSet);
    const moved = await moveStore(hook.tenantId, objectStoreId, `http://localhost:${new URL(useEndpoint()).port}`);
    expect(moved.status, moved.text).toBe(204);
    // Act
    const committed = await commitTableProperties(dataSet, (properties) => ({
      ...properties,
      'tributary.freshness': 'interval 30 seconds',
    }));
    // Assert: no error; the properties committed and the version recorded against the store's new place.
    expect(committed.properties['tributary.freshness']).toBe('interval 30 seconds');
    expect((await getDataSet(hook.dataSetId))?.version).toBe(committed.version);
    expect(await getObjectStore(hook.tenantId, objectStoreId)).toMatchObject({ place_version: 1, first_commits: 1 });
  });

  it('refuses a change of place checked before a first commit was recorded, and changes nothing', async () => {
    // Arrange: the change found no committed table (it read first_commits 0); then the first commit was recorded.
    const { hook, dataSet, objectStoreId } = await dataSetInStore();
    const { getObjectStore, replaceObjectStoreOptions } = await import('../../shared/adapters/dynamo/object-stores.ts');
    const { openTable } = await import('../../shared/adapters/table-storage.ts');
    const before = await getObjectStore(hook.tenantId, objectStoreId);
    if (!before) throw new Error('no store');
    expect(before.first_commits ?? 0).toBe(0);
    await (await openTable(dataSet)).recordVersion(0);
    // Act: the change's write, as checked before that commit.
    const outcome = await replaceObjectStoreOptions(
      hook.tenantId,
      objectStoreId,
      ['endpoint'],
      'sealed elsewhere',
      new Date(),
      [],
      { firstCommits: 0 },
    );
    // Assert
    expect(outcome).toBe('tableCommitted');
    const after = await getObjectStore(hook.tenantId, objectStoreId);
    expect(after?.options_sealed).toBe(before.options_sealed);
    expect(after?.updated_at).toBe(before.updated_at);
    expect(after?.place_version).toBeUndefined();
    expect(after?.first_commits).toBe(1);
  });
});

describe('first commits in one store at the same moment', () => {
  it('are each recorded and counted on the store, none refused', async () => {
    // Arrange: eight data sets of one tenant, fixed in its store, each opened by a run of its own.
    const first = await dataSetInStore();
    const others = await Promise.all(Array.from({ length: 7 }, () => dataSetInStore(first.hook.tenantId)));
    const { getDataSet } = await import('../../shared/adapters/dynamo/data-sets.ts');
    const { getObjectStore } = await import('../../shared/adapters/dynamo/object-stores.ts');
    const { openTable } = await import('../../shared/adapters/table-storage.ts');
    const all = [first, ...others];
    expect(new Set(all.map((one) => one.objectStoreId)).size).toBe(1);
    const tables = await Promise.all(all.map((one) => openTable(one.dataSet)));
    // Act
    const recorded = await Promise.allSettled(tables.map((table) => table.recordVersion(0)));
    // Assert
    expect(recorded.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
    const versions = await Promise.all(all.map(async (one) => (await getDataSet(one.hook.dataSetId))?.version));
    expect(versions).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await getObjectStore(first.hook.tenantId, first.objectStoreId)).toMatchObject({ first_commits: 8 });
  });
});

/** The local S3 endpoint the stores of these tests are registered with. */
function useEndpoint(): string {
  const endpoint = process.env.AWS_ENDPOINT_URL_S3;
  if (!endpoint) throw new Error('no local S3 endpoint');
  return endpoint;
}
