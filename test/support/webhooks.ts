import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { expect, inject } from 'vitest';
import { localCredentials, localRegion } from '../../local/stand-ins.ts';
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
  }>(`/api/tenants/${tenantId}/connections`, { json: { type: 'Webhook', name: unique('hook') }, retryBusy: true });
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

/** What the table's staging partition holds (its head whole, its records counted): what a failed wait saw. */
async function stagingOf(dataSetId: string): Promise<string> {
  const env = inject('runtimeEnv');
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
      region: localRegion,
      credentials: localCredentials,
    }),
  );
  try {
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: 'tributary',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `STAGE#${dataSetId}` },
      }),
    );
    const head = Items.find((item) => item.sk === 'HEAD');
    // Records up to the head's watermark are done (they stay until their time to live).
    const through = typeof head?.through === 'string' ? `B#${head.through}` : '';
    const records = Items.filter((item) => item.sk !== 'HEAD' && item.sk > through);
    return `head ${JSON.stringify(head ?? null)}, ${records.length} records (${records.reduce((sum, item) => sum + Number(item.rows ?? 0), 0)} rows), now ${new Date().toISOString()}`;
  } catch (error) {
    return `(not read: ${(error as Error).message})`;
  } finally {
    client.destroy();
  }
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
    const files = await api.get<{ files: { num_records: number }[] }>(`/api/data-sets/${dataSetId}/files`, {
      retryBusy: true,
    });
    const rows = (files.body.files ?? []).reduce((sum, file) => sum + file.num_records, 0);
    if (rows >= count || Date.now() > deadline) {
      const dataSet = await api.get<{ storage_location: string; version: number | null; status: string }>(
        `/api/data-sets/${dataSetId}`,
      );
      const { version, status } = dataSet.body;
      const staging = rows === count ? '' : `; staged: ${await stagingOf(dataSetId)}`;
      expect(rows, `rows committed to ${dataSetId} (the data set ${status}, at version ${version}${staging})`).toBe(
        count,
      );
      return dataSet.body.storage_location;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
