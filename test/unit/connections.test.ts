/**
 * The connection use cases, in process through in-memory ports (test/support/memory.ts). The running
 * service checks the wiring of the same routes.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getSecurity, putSecurity, rotateSigningSecret } from '#shared/domain/connections/security-use-cases.ts';
import {
  connectionDetail,
  deleteConnection,
  moveConnection,
  regenerateToken,
} from '#shared/domain/connections/use-cases.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { createTenant, suspendTenant } from '#shared/domain/tenants/use-cases.ts';
import { platformAdmin, tenantPrincipal } from '../support/memory.ts';
import { refusal } from '../support/refusal.ts';
import { now, withConnection } from '../support/use-case-setups.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe.concurrent('connections', () => {
  it('issue an ingest token shown once and kept as its SHA-256, with one Pending Delta data set', async () => {
    const { store, tenantId, connection, dataSet, ingestToken } = await withConnection();
    expect(ingestToken).toMatch(/^trb_ing_[A-Za-z0-9_-]{43}$/);
    expect(connection).toMatchObject({
      tenant_id: tenantId,
      type: 'Webhook',
      name: 'github',
      status: 'Active',
      source_status: 'Active',
      token_prefix: ingestToken.slice(0, 12),
      data_set_id: dataSet.data_set_id,
    });
    expect(store.state.sources.get(connection.source_id)).toEqual({
      source_id: connection.source_id,
      connection_id: connection.connection_id,
      tenant_id: tenantId,
      data_set_id: dataSet.data_set_id,
      token_hash: sha256(ingestToken),
      source_status: 'Active',
      connection_status: 'Active',
      security: {
        auth_mode: 'bearer',
        signature: null,
        dedup_window_seconds: 0,
        dedup_key: null,
        rate_limit: null,
        ip_allowlist: null,
      },
      ingest_url: `https://tributary.example/api/ingest/${connection.source_id}`,
    });
    expect(store.state.dataSets.get(dataSet.data_set_id)).toMatchObject({
      tenant_id: tenantId,
      tenant_slug: 'acme',
      name: 'github',
      data_set_type: 'Delta',
      storage_tier: 'Tributary',
      status: 'Pending',
      storage_location: null,
      object_store_id: null,
      version: null,
      origin: { type: 'Webhook', connection_id: connection.connection_id, source_id: connection.source_id },
      partitioning: { columns: ['dt'], granularity: 'day' },
    });
    expect(dataSet.schema_json.fields.map((field) => [field.name, field.type, field.nullable])).toEqual([
      ['dt', 'string', false],
      ['message_id', 'string', false],
      ['ingested_at', 'timestamp', false],
      ['source_id', 'string', false],
      ['tenant_id', 'string', false],
      ['content_type', 'string', true],
      ['payload_size', 'long', false],
      ['payload', 'string', false],
      ['headers', 'string', true],
    ]);
  });

  it('show the ingest URL their senders were given, whatever host reads them, and none for a source made before it was kept', async () => {
    const { store, connection } = await withConnection();
    expect((await connectionDetail(store, platformAdmin, connection.connection_id)).ingest_url).toBe(
      `https://tributary.example/api/ingest/${connection.source_id}`,
    );
    const source = store.state.sources.get(connection.source_id);
    if (source) delete source.ingest_url;
    expect((await connectionDetail(store, platformAdmin, connection.connection_id)).ingest_url).toBeNull();
  });

  it('move between states once (409 for the state they are in); reducing ones work while the tenant is suspended', async () => {
    const { store, tenantId, connection } = await withConnection();
    const id = connection.connection_id;
    await moveConnection(store, platformAdmin, id, { field: 'source_status', to: 'Paused' });
    expect(
      await refusal(moveConnection(store, platformAdmin, id, { field: 'source_status', to: 'Paused' })),
    ).toMatchObject({ code: 'CONFLICT' });
    expect(store.state.sources.get(connection.source_id)?.source_status).toBe('Paused');
    await suspendTenant(store, platformAdmin, tenantId);
    await moveConnection(store, platformAdmin, id, { field: 'status', to: 'Inactive' });
    expect(await refusal(moveConnection(store, platformAdmin, id, { field: 'status', to: 'Active' }))).toMatchObject({
      code: 'TENANT_SUSPENDED',
    });
    expect(store.state.sources.get(connection.source_id)?.connection_status).toBe('Inactive');
    // A deletion cannot be undone: a write like any other, refused while suspended.
    expect(await refusal(deleteConnection(store, platformAdmin, id))).toMatchObject({ code: 'TENANT_SUSPENDED' });
    expect(store.state.connections.has(id)).toBe(true);
  });

  it('replace the token: the source keeps only the new one’s hash', async () => {
    const { store, connection, ingestToken } = await withConnection();
    const fresh = await regenerateToken(store, platformAdmin, connection.connection_id);
    expect(fresh).not.toBe(ingestToken);
    expect(store.state.sources.get(connection.source_id)?.token_hash).toBe(sha256(fresh));
  });

  it('generate a signing secret shown once, keep it sealed, and keep the old one for the grace period on rotation', async () => {
    const { store, connection } = await withConnection();
    const id = connection.connection_id;
    const put = await putSecurity(
      store,
      platformAdmin,
      id,
      {
        auth_mode: 'signature',
        signature: { scheme: 'standard-webhooks' },
        dedup_window_seconds: 300,
        rate_limit: { requests_per_second: 5, burst: 10 },
        ip_allowlist: ['192.0.2.0/24'],
      },
      now,
    );
    expect(put.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = JSON.stringify(store.state.sources.get(connection.source_id)?.security);
    expect(stored).not.toContain(put.signing_secret);
    expect(await getSecurity(store, platformAdmin, id)).toEqual({
      auth_mode: 'signature',
      signature: {
        scheme: 'standard-webhooks',
        header: null,
        encoding: null,
        tolerance_seconds: 300,
        public_key: null,
        verify_token_set: false,
        secrets: [{ created_at: now.toISOString(), expires_at: null }],
      },
      dedup_window_seconds: 300,
      dedup_key: null,
      rate_limit: { requests_per_second: 5, burst: 10 },
      ip_allowlist: ['192.0.2.0/24'],
    });
    const rotated = await rotateSigningSecret(store, platformAdmin, id, { grace_seconds: 60 }, now);
    expect(rotated.signing_secret).not.toBe(put.signing_secret);
    expect((await getSecurity(store, platformAdmin, id)).signature?.secrets).toEqual([
      { created_at: now.toISOString(), expires_at: null },
      { created_at: now.toISOString(), expires_at: '2026-11-21T10:01:00.000Z' },
    ]);
  });

  it('keep at most 4 previous signing secrets: a rotation beyond is 409 and changes nothing, until one ends', async () => {
    const { store, connection } = await withConnection();
    const id = connection.connection_id;
    const settings = {
      auth_mode: 'signature' as const,
      signature: { scheme: 'standard-webhooks' as const },
      dedup_window_seconds: 0,
      rate_limit: null,
      ip_allowlist: null,
    };
    await putSecurity(store, platformAdmin, id, settings, now);
    const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
    // Four rotations a minute apart, each with a day's grace: the current secret and four previous ones.
    for (const minute of [1, 2, 3, 4]) {
      await rotateSigningSecret(store, platformAdmin, id, { grace_seconds: 86_400 }, minutes(minute));
    }
    const secretsNow = () => store.state.sources.get(connection.source_id)?.security.signature?.secrets;
    const kept = structuredClone(secretsNow());
    expect(kept?.map((secret) => secret.expires_at)).toEqual([
      null,
      '2026-11-22T10:04:00.000Z',
      '2026-11-22T10:03:00.000Z',
      '2026-11-22T10:02:00.000Z',
      '2026-11-22T10:01:00.000Z',
    ]);
    const refused = await rotateSigningSecret(store, platformAdmin, id, { grace_seconds: 60 }, minutes(5)).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    const { code, message, details } = refused as DomainError;
    expect({ code, message, details }).toEqual({
      code: 'CONFLICT',
      message:
        'A source keeps at most 4 previous signing secrets in their grace time, and this one has 4; the first of ' +
        'them ends at 2026-11-22T10:01:00.000Z. Rotate after then, or with grace_seconds 0 to end every previous secret now.',
      details: null,
    });
    expect(secretsNow()).toEqual(kept);
    // Once the first previous secret has ended, a rotation keeps four again.
    await rotateSigningSecret(store, platformAdmin, id, { grace_seconds: 86_400 }, minutes(24 * 60 + 1));
    expect(secretsNow()?.length).toBe(5);
    // A grace of 0 ends every previous secret at once: only the new one is kept.
    await rotateSigningSecret(store, platformAdmin, id, { grace_seconds: 0 }, minutes(24 * 60 + 3));
    expect(secretsNow()?.map((secret) => secret.expires_at)).toEqual([null]);
  });

  it('are gone once deleted, while their data set stays; another tenant’s caller gets 404', async () => {
    const { store, connection, dataSet } = await withConnection();
    const stranger = tenantPrincipal((await createTenant(store, { name: 'Other' })).tenant_id, 'TenantAdmin');
    expect(await refusal(deleteConnection(store, stranger, connection.connection_id))).toMatchObject({
      code: 'NOT_FOUND',
    });
    await deleteConnection(store, platformAdmin, connection.connection_id);
    expect(store.state.connections.has(connection.connection_id)).toBe(false);
    expect(store.state.dataSets.has(dataSet.data_set_id)).toBe(true);
    expect(await refusal(regenerateToken(store, platformAdmin, connection.connection_id))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
