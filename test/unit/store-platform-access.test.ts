/**
 * A store registered without keys or a role, on AWS S3, is reached with the platform's own role for
 * tenant buckets: only in a bucket the deployment lists in tenantBuckets. Anywhere else it is refused
 * (400 on options.role_arn, nothing stored), whether registered so or changed to it. The use cases run
 * in process through the in-memory ports (test/support/memory.ts), whose tenantBuckets are `demo-bucket`,
 * `lake` and `lake-two` unless a test changes them.
 */
import { describe, expect, it } from 'vitest';
import type { ObjectStoreOptions } from '#shared/domain/tenants/object-stores.ts';
import { createTenant, registerObjectStore, updateObjectStoreOptions } from '#shared/domain/tenants/use-cases.ts';
import { memoryStore, platformAdmin } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';

const at = new Date('2026-11-21T10:00:00.000Z');
const tenantRole = 'arn:aws:iam::111122223333:role/tributary-writer';

async function withTenant() {
  const store = memoryStore();
  const tenant = await createTenant(store, { name: 'Acme' }, at);
  store.state.roleTrust.set(tenantRole, { externalId: tenant.aws_external_id });
  const register = (base_url: string, options: ObjectStoreOptions) =>
    registerObjectStore(store, platformAdmin, tenant.tenant_id, { base_url, name: 'lake', options }, at);
  return { store, tenantId: tenant.tenant_id, register };
}

const outcome = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'done',
    (error: unknown) => refusal(Promise.reject(error)),
  );

describe('registering a store without keys or a role', () => {
  const cases: [string, string, ObjectStoreOptions, 'done' | { code: string; paths: string[] }][] = [
    [
      'in a bucket that is no tenant bucket',
      's3://acme-private/raw',
      { region: 'eu-west-1' },
      { code: 'VALIDATION_ERROR', paths: ['options.role_arn'] },
    ],
    ['in a tenant bucket', 's3://lake/acme', { region: 'eu-west-1' }, 'done'],
    [
      'with a role of its own, elsewhere',
      's3://acme-private/raw',
      { region: 'eu-west-1', role_arn: tenantRole },
      'done',
    ],
    [
      'with keys of its own, elsewhere',
      's3://acme-private/raw',
      { region: 'eu-west-1', access_key_id: 'AKIAACME1', secret_access_key: 's' },
      'done',
    ],
    [
      'at a custom endpoint (reached anonymously)',
      's3://acme-private/raw',
      { endpoint: 'http://127.0.0.1:4569' },
      'done',
    ],
  ];
  it.for(cases)('%s: %j', async ([, baseUrl, options, expected], { expect }) => {
    // Arrange
    const { store, register } = await withTenant();
    // Act
    const result = await outcome(register(baseUrl, options));
    // Assert
    expect(result).toEqual(expected);
    expect(store.state.stores.size).toBe(expected === 'done' ? 1 : 0);
  });

  it('is refused in every bucket where the deployment lists no tenant buckets', async () => {
    // Arrange
    const { store, register } = await withTenant();
    store.state.tenantBuckets.clear();
    // Act
    const result = await outcome(register('s3://lake/acme', { region: 'eu-west-1' }));
    // Assert
    expect(result).toEqual({ code: 'VALIDATION_ERROR', paths: ['options.role_arn'] });
    expect(store.state.stores.size).toBe(0);
  });
});

describe('changing a store’s options to neither keys nor a role', () => {
  it('is refused outside the tenant buckets, and the store keeps its options', async () => {
    // Arrange
    const { store, tenantId, register } = await withTenant();
    const kept = await register('s3://acme-private/raw', {
      region: 'eu-west-1',
      access_key_id: 'AKIAACME1',
      secret_access_key: 's',
    });
    // Act
    const result = await outcome(
      updateObjectStoreOptions(store, platformAdmin, tenantId, {
        object_store_id: kept.object_store_id,
        options: { region: 'eu-west-1' },
      }),
    );
    // Assert
    expect(result).toEqual({ code: 'VALIDATION_ERROR', paths: ['options.role_arn'] });
    expect(store.state.stores.get(kept.object_store_id)?.option_keys).toEqual([
      'access_key_id',
      'region',
      'secret_access_key',
    ]);
  });

  it('is allowed in a tenant bucket', async () => {
    // Arrange
    const { store, tenantId, register } = await withTenant();
    const kept = await register('s3://lake/acme', { region: 'eu-west-1', role_arn: tenantRole });
    // Act
    const result = await outcome(
      updateObjectStoreOptions(store, platformAdmin, tenantId, {
        object_store_id: kept.object_store_id,
        options: { region: 'eu-west-1' },
      }),
    );
    // Assert
    expect(result).toBe('done');
    expect(store.state.stores.get(kept.object_store_id)?.option_keys).toEqual(['region']);
  });
});
