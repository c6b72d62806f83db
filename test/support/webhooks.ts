import { expect, inject } from 'vitest';
import type { ApiClient } from './api.ts';
import { createTenant, registerStore, unique } from './fixtures.ts';

export interface Webhook {
  tenantId: string;
  connectionId: string;
  sourceId: string;
  dataSetId: string;
  token: string;
  /** The URL the service gave for senders (URL-signing senders sign it). */
  ingestUrl: string;
}

export async function createWebhook(
  api: ApiClient,
  options: { tenantId?: string; store?: { endpoint: string } | null } = {},
): Promise<Webhook> {
  const tenantId = options.tenantId ?? (await createTenant(api));
  if (options.store !== null) {
    await registerStore(
      api,
      tenantId,
      { endpoint: options.store?.endpoint ?? (await localS3Endpoint()) },
      `s3://demo-bucket/${unique('tenant')}`,
    );
  }
  const created = await api.post<{
    connection_id: string;
    source_id: string;
    data_set_id: string;
    ingest_token: string;
    ingest_url: string;
  }>(`/api/tenants/${tenantId}/connections`, { json: { type: 'Webhook', name: unique('hook') } });
  expect(created.status, created.text).toBe(201);
  return {
    tenantId,
    connectionId: created.body.connection_id,
    sourceId: created.body.source_id,
    dataSetId: created.body.data_set_id,
    token: created.body.ingest_token,
    ingestUrl: created.body.ingest_url,
  };
}

async function localS3Endpoint(): Promise<string> {
  return inject('runtimeEnv').AWS_ENDPOINT_URL_S3 as string;
}

export async function ingest(
  api: ApiClient,
  hook: Pick<Webhook, 'sourceId' | 'token'>,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  query = '',
) {
  return api.post<{ message_id: string }>(`/api/ingest/${hook.sourceId}${query}`, {
    key: null,
    raw: body,
    headers: { authorization: `Bearer ${hook.token}`, ...headers },
  });
}

/**
 * Polls the data set until `count` rows are committed (or the time is up) and answers its location.
 * A commit takes about 2 s here; the bound is far above it, since beside the whole suite a table's
 * trigger can wait behind other tables' commits, and a retry after a failed attempt can wait for the
 * commits schedule (two runs of the suite this way missed 30 s).
 */
export async function waitForRows(
  api: ApiClient,
  dataSetId: string,
  count: number,
  timeoutMs = 60_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = await api.get<{ files: { num_records: number }[] }>(`/api/data-sets/${dataSetId}/files`);
    const rows = (files.body.files ?? []).reduce((sum, file) => sum + file.num_records, 0);
    if (rows >= count || Date.now() > deadline) {
      const dataSet = await api.get<{ storage_location: string; version: number | null; status: string }>(
        `/api/data-sets/${dataSetId}`,
      );
      const { version, status } = dataSet.body;
      expect(rows, `rows committed to ${dataSetId} (the data set ${status}, at version ${version})`).toBe(count);
      return dataSet.body.storage_location;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
