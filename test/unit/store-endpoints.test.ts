/**
 * Custom store endpoints: accepted only where the deployment allows them, checked when a store is
 * registered or its options change (400) and again at every use (a store registered before the
 * setting changed is not reached); and what a store answers reaches nobody: a failure is a category
 * and a documented S3 error code. The store here is a local HTTP server that records what it is sent.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFailureOf } from '#shared/adapters/s3/store-failure-codes.ts';
import { tableLocation } from '#shared/adapters/s3/tenant-stores.ts';
import { secretBox } from '#shared/adapters/secret-box.ts';
import { tenantRoleChecks } from '#shared/adapters/tenant-roles.ts';
import { DomainError } from '#shared/domain/errors.ts';
import type { Principal } from '#shared/domain/principal.ts';
import { endpointAllowed, type StoredObjectStore } from '#shared/domain/tenants/object-stores.ts';
import { connectStore } from '#shared/domain/tenants/store-access.ts';
import { StoreFailure } from '#shared/domain/tenants/store-failures.ts';
import { registerObjectStore, updateObjectStoreOptions } from '#shared/domain/tenants/use-cases.ts';
import { tenantRecord } from '../support/memory.ts';

const secretText = 'password=hunter2 AKIAINTERNALSECRET01 db.internal:5432';
const seen: IncomingHttpHeaders[] = [];
const remote = createServer((request, response) => {
  seen.push(request.headers);
  request.resume();
  response.writeHead(403, { 'content-type': 'application/xml' });
  response.end(`<Error><Code>AccessDenied</Code><Message>${secretText}</Message></Error>`);
});
let endpoint = '';

const saved = { ...process.env };
beforeAll(async () => {
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    SECRETS_KEY: randomBytes(32).toString('base64url'),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIAPLATFORM00000001',
    AWS_SECRET_ACCESS_KEY: 'platform-secret',
  });
});
afterAll(() => {
  process.env = saved;
  remote.close();
});

const admin: Principal = { kind: 'platform', role: 'PlatformAdmin', userId: null, apiKeyId: 'k' };
const tenant = tenantRecord({ tenant_id: '5d0c2a3e-9f1d-4e7a-8c6b-5d4e3f2a1b0c', name: 'acme' });

/** In-memory tenancy ports; `allowed` is the deployment's setting at the time of the call. */
function tenancy(allowed: string[]) {
  const stores: StoredObjectStore[] = [];
  return {
    stores,
    deps: {
      getTenant: async () => tenant,
      getObjectStore: async () => stores[0] ?? null,
      listObjectStores: async () => ({ items: stores, nextCursor: null }),
      countObjectStores: async () => stores.length,
      getStorePathClaims: async (bucket: string, paths: string[]) =>
        paths.map((path) => ({ bucket, path, owner: null, beneath: null, version: 0 })),
      createObjectStore: async (store: StoredObjectStore) => {
        stores.push(store);
        return true;
      },
      setDefaultObjectStore: async () => {},
      dataSetsInStore: async () => [],
      replaceObjectStoreOptions: async () => 'replaced' as const,
      secrets: secretBox,
      allowedStoreEndpoints: () => allowed,
      tenantBuckets: () => [],
      roles: tenantRoleChecks,
    },
  };
}

async function refusalOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw new Error(`Expected a refusal, got ${String(error)}`);
  return { code: error.code, message: error.message, details: error.details };
}

describe('which endpoints a deployment accepts', () => {
  const cases: [string, string[], boolean][] = [
    ['http://127.0.0.1:4569', ['loopback'], true],
    ['http://127.1:4569', ['loopback'], true],
    ['http://0x7f.0.0.1', ['loopback'], true],
    ['http://localhost:9000', ['loopback'], true],
    ['http://[::1]:9000', ['loopback'], true],
    ['http://0.0.0.0:4569', ['loopback'], false],
    ['http://[::ffff:127.0.0.1]:4569', ['loopback'], false],
    ['http://169.254.169.254', ['loopback'], false],
    ['http://10.0.0.5:9000', ['loopback'], false],
    ['http://127.0.0.1:4569', [], false],
    ['https://acct.r2.cloudflarestorage.com', ['*.r2.cloudflarestorage.com'], true],
    ['https://r2.cloudflarestorage.com', ['*.r2.cloudflarestorage.com'], false],
    ['https://r2.cloudflarestorage.com.evil.example', ['*.r2.cloudflarestorage.com'], false],
    ['https://MinIO.Example.com:9000', ['minio.example.com:9000'], true],
    ['https://minio.example.com', ['minio.example.com:9000'], false],
    ['https://minio.example.com', ['minio.example.com'], true],
    ['https://minio.example.com.', ['minio.example.com'], false],
    ['not a url', ['loopback'], false],
    // Beyond loopback, https unless the operator's entry names http itself.
    ['http://minio.example.com:9000', ['minio.example.com:9000'], false],
    ['http://minio.example.com', ['*.example.com', 'minio.example.com'], false],
    ['http://minio.example.com:9000', ['http://minio.example.com:9000'], true],
    ['https://minio.example.com:9000', ['http://minio.example.com:9000'], true],
    ['http://minio.example.com:9001', ['http://minio.example.com:9000'], false],
    ['http://acct.r2.cloudflarestorage.com', ['http://*.r2.cloudflarestorage.com'], true],
    ['ftp://minio.example.com', ['minio.example.com'], false],
  ];
  it.each(cases)('%s with %j → %s', (url, allowed, expected) => {
    expect(endpointAllowed(url, allowed)).toBe(expected);
  });
});

describe('registering a store with a custom endpoint', () => {
  it('refuses an endpoint the deployment does not accept (400), naming the option, not its value', async () => {
    const { deps, stores } = tenancy(['loopback']);
    const refused = await refusalOf(
      registerObjectStore(deps, admin, tenant.tenant_id, {
        base_url: 's3://lake',
        name: 'lake',
        options: { endpoint: 'http://169.254.169.254:80' },
      }),
    );
    expect(refused.code).toBe('VALIDATION_ERROR');
    expect(refused.details?.map((detail) => detail.path)).toEqual(['options.endpoint']);
    expect(JSON.stringify(refused)).not.toContain('169.254');
    expect(stores).toEqual([]);

    const update = await refusalOf(
      updateObjectStoreOptions(deps, admin, tenant.tenant_id, {
        object_store_id: '6d0c2a3e-9f1d-4e7a-8c6b-5d4e3f2a1b0c',
        options: { endpoint: 'https://minio.internal:9000' },
      }),
    );
    expect(update.code).toBe('VALIDATION_ERROR');
  });

  it('does not reach a store registered before the deployment stopped accepting its endpoint', async () => {
    const { deps, stores } = tenancy(['loopback']);
    await registerObjectStore(deps, admin, tenant.tenant_id, {
      base_url: 's3://lake',
      name: 'lake',
      options: { endpoint },
    });
    const store = await connectStore(
      { secrets: secretBox, getTenant: async () => tenant },
      stores[0] as StoredObjectStore,
      'readWrite',
    );
    const before = seen.length;

    process.env.ALLOWED_STORE_ENDPOINTS = '';
    const refused = await refusalOf(tableLocation(store, 's3://lake/datasets/x').then((table) => table.list('')));
    expect(refused.code).toBe('OBJECT_STORE_FAILED');
    expect(refused.message).toMatch(/^ENDPOINT_NOT_ALLOWED: /);
    expect(seen.length).toBe(before);

    process.env.ALLOWED_STORE_ENDPOINTS = 'loopback';
    const reached = await refusalOf(tableLocation(store, 's3://lake/datasets/x').then((table) => table.list('')));
    expect(seen.length).toBeGreaterThan(before);
    // What the store said, and where it is, stay out of the failure; the platform's credentials never went there.
    expect(reached).toEqual({
      code: 'OBJECT_STORE_FAILED',
      message: 'ACCESS_DENIED: The object store refused the credentials or the access (S3 error code AccessDenied)',
      details: [
        { path: 'object_store.category', message: 'ACCESS_DENIED' },
        { path: 'object_store.s3_error_code', message: 'AccessDenied' },
      ],
    });
    for (const headers of seen) {
      expect(headers.authorization).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain('AKIAPLATFORM00000001');
    }
  });
});

describe('store failures', () => {
  const named = (name: string, message = secretText) => Object.assign(new Error(message), { name });
  const cases: [string, Error, string, string | null][] = [
    ['S3 access denied', named('AccessDenied'), 'ACCESS_DENIED', 'AccessDenied'],
    [
      'STS refusing the role',
      named('AccessDenied', `User: arn:aws:sts::1:assumed-role/x is not authorized`),
      'ACCESS_DENIED',
      'AccessDenied',
    ],
    ['wrong keys', named('InvalidAccessKeyId'), 'ACCESS_DENIED', 'InvalidAccessKeyId'],
    ['no bucket', named('NoSuchBucket'), 'NO_SUCH_BUCKET', 'NoSuchBucket'],
    ['missing object', named('NoSuchKey'), 'NO_SUCH_KEY', 'NoSuchKey'],
    ['throttled', named('SlowDown'), 'STORE_UNAVAILABLE', 'SlowDown'],
    ['failing', named('ServiceUnavailable'), 'STORE_UNAVAILABLE', 'ServiceUnavailable'],
    ['wrong region', named('PermanentRedirect'), 'STORE_REFUSED', 'PermanentRedirect'],
    [
      'closed port',
      Object.assign(named('Error', 'connect ECONNREFUSED 10.0.0.5:9000'), { code: 'ECONNREFUSED' }),
      'STORE_UNREACHABLE',
      null,
    ],
    ['timeout', named('TimeoutError', 'socket timed out to minio.internal'), 'STORE_UNREACHABLE', null],
    ['a code S3 does not document', named('ThisIsTheAdminPassword'), 'STORE_UNREACHABLE', null],
    ['a prototype name', named('constructor'), 'STORE_UNREACHABLE', null],
    ['not an error', 'boom' as unknown as Error, 'STORE_UNREACHABLE', null],
  ];
  it.each(cases)('%s → its category and documented code only', (_, error, category, code) => {
    const failure = storeFailureOf(error);
    expect(failure).toBeInstanceOf(StoreFailure);
    expect({ category: failure.category, code: failure.s3Code }).toEqual({ category, code });
    for (const leak of [
      'hunter2',
      'AKIAINTERNALSECRET01',
      'db.internal',
      '10.0.0.5',
      'minio.internal',
      'assumed-role',
    ]) {
      expect(
        JSON.stringify({ message: failure.message, details: failure.details, stack: failure.stack }),
      ).not.toContain(leak);
    }
  });
});
