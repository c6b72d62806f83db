/**
 * Local mode holds every function's AWS calls to its synthesised role: a call the role does not
 * allow is refused as AWS refuses it (AccessDenied, in the service's own error shape), counted at
 * /metrics and logged. Here the platform reaches a tenant store with its own credentials (no keys,
 * no role, no endpoint) in a bucket the deployment never listed in tenantBuckets: its role allows no
 * such bucket, so the store is refused, and the tenant sees the store's ACCESS_DENIED category.
 * Registering such a store is refused (400); the store here is one kept from before that rule, or from
 * before its bucket left tenantBuckets, written straight into the table.
 *
 * The suite fails on any denial it did not ask for (test/support/global-setup.ts): the buckets
 * here are named `not-granted-…`, the one name it expects refused.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { createTenant, unique } from '../support/fixtures.ts';
import { pollUntil } from '../support/poll.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook, ingest } from '../support/webhooks.ts';

/** A store for the platform's own role at `baseUrl`, kept as a registration before the bucket rule would have. */
async function keptStore(tenantId: string, baseUrl: string, options: Record<string, string>): Promise<void> {
  useServiceEnvironment();
  const { createObjectStore } = await import('#shared/adapters/dynamo/object-stores.ts');
  const { secretBox } = await import('#shared/adapters/secret-box.ts');
  const objectStoreId = randomUUID();
  const at = new Date().toISOString();
  const written = await createObjectStore(
    {
      object_store_id: objectStoreId,
      tenant_id: tenantId,
      name: unique('kept'),
      base_url: baseUrl,
      option_keys: Object.keys(options).sort(),
      options_sealed: await secretBox.seal(
        JSON.stringify(options),
        `object-store-options:${tenantId}:${objectStoreId}`,
      ),
      created_at: at,
      updated_at: at,
    },
    [],
  );
  expect(written).toBe(true);
}

const api = apiClient();

describe('IAM, as local mode enforces it', () => {
  it('refuses a call the function’s role does not allow as AccessDenied, and counts it at /metrics', async () => {
    const bucket = unique('not-granted');
    const tenantId = await createTenant(api);
    const registration = await api.post<{ code: string; details: { path: string }[] }>(
      `/api/tenants/${tenantId}/register-object-store`,
      { json: { base_url: `s3://${bucket}/lake`, name: 'lake', options: { region: 'us-east-1' } } },
    );
    expect([registration.status, registration.body.code, registration.body.details.map((d) => d.path)]).toEqual([
      400,
      'VALIDATION_ERROR',
      ['options.role_arn'],
    ]);
    await keptStore(tenantId, `s3://${bucket}/lake`, { region: 'us-east-1' });
    const hook = await createWebhook(api, { tenantId, store: null });
    expect((await ingest(api, hook, JSON.stringify({ hello: 'iam' }))).status).toBe(202);

    // The writer (or the commit schedule) reaches the store with the platform's role: refused.
    const denied = await pollUntil(
      async () =>
        (await api.get('/metrics')).text
          .split('\n')
          .filter((line) => line.startsWith('tributary_local_access_denied_total') && line.includes(bucket)),
      (lines) => lines.length > 0,
      { what: 'a denial of the store at /metrics', timeoutMs: 60_000 },
    );
    for (const line of denied)
      expect(line).toMatch(
        new RegExp(
          `^tributary_local_access_denied_total\\{function="[^"]+",action="s3:[A-Za-z]+",resource="arn:aws:s3:::${bucket}(/lake/[^"]*)?"\\} [1-9]\\d*$`,
        ),
      );

    // What the tenant sees: the envelope is not written, and the store's failure is ACCESS_DENIED.
    const stats = await pollUntil(
      () =>
        api.get<{ last_error?: string | null; written_rows: number }>(`/api/connections/${hook.connectionId}/stats`),
      (response) => /ACCESS_DENIED/.test(JSON.stringify(response.body)),
      { what: 'ACCESS_DENIED in the connection’s stats', timeoutMs: 90_000 },
    );
    expect(stats.body.written_rows).toBe(0);
  });
});
