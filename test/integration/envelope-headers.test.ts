/**
 * What the sender said in its headers, kept: a request with GitHub's headers, a custom one, a bearer
 * token and a cookie is stored with its headers column holding the first three and no credential,
 * as DuckDB reads the committed Parquet file; the events route shows the headers and the event type
 * GitHub's preset says where to find, and filters by it.
 */

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { describe, expect, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { readDeltaTable } from '../support/delta.ts';
import { pollUntil } from '../support/poll.ts';
import { useServiceEnvironment } from '../support/service-env.ts';
import { createWebhook, ingest, waitForRows } from '../support/webhooks.ts';

const api = apiClient();

const sent = {
  'X-GitHub-Event': 'pull_request',
  'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  'X-Custom-Thing': 'Custom Value 42',
  Cookie: 'session=cookie-secret-value',
  'content-type': 'application/json',
};

interface EventsPage {
  events: { message_id: string; headers: Record<string, string> | null; event_type: string | null }[];
}

describe('the headers an envelope keeps', () => {
  it('are in the table as a JSON object of the headers sent, without the token or the cookie, and in the events view with the event type', async () => {
    const hook = await createWebhook(api);
    const secret = 'github-webhook-secret-of-some-length';
    const secured = await api.put(`/api/connections/${hook.connectionId}/security`, {
      json: {
        auth_mode: 'bearer_and_signature',
        signature: { scheme: 'github', secret },
        dedup_window_seconds: 0,
        rate_limit: null,
        ip_allowlist: null,
      },
    });
    expect(secured.status, secured.text).toBe(200);
    const body = JSON.stringify({ action: 'opened', number: 7 });
    const signature = await githubSign(secret, body);
    const response = await ingest(api, hook, body, { ...sent, 'X-Hub-Signature-256': signature });
    expect(response.status, response.text).toBe(202);
    const messageId = response.body.message_id;

    const location = await waitForRows(api, hook.dataSetId, 1);
    const table = await readDeltaTable(location, 'message_id, headers');
    expect(table.types.headers).toBe('VARCHAR');
    const row = table.rows.find((candidate) => candidate.message_id === messageId);
    expect(typeof row?.headers).toBe('string');
    const text = String(row?.headers);
    const headers: Record<string, string> = JSON.parse(text);
    expect(headers).toMatchObject({
      'x-github-event': 'pull_request',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-custom-thing': 'Custom Value 42',
      'content-type': 'application/json',
    });
    for (const name of Object.keys(headers)) expect(name).toBe(name.toLowerCase());
    for (const secretText of [hook.token, 'cookie-secret-value', signature, 'authorization', 'cookie', 'Bearer'])
      expect(text.toLowerCase()).not.toContain(secretText.toLowerCase());

    const page = await pollUntil(
      () => api.get<EventsPage>(`/api/connections/${hook.connectionId}/events?message_id=${messageId}`),
      (answer) => answer.status === 200 && answer.body.events.length === 1,
    );
    expect(page.body.events[0]?.event_type).toBe('pull_request');
    expect(page.body.events[0]?.headers).toEqual(headers);

    const ofType = async (type: string) =>
      (await api.get<EventsPage>(`/api/connections/${hook.connectionId}/events?event_type=${type}`)).body.events.map(
        (event) => event.message_id,
      );
    expect(await ofType('pull_request')).toEqual([messageId]);
    expect(await ofType('push')).toEqual([]);
  });

  it('are a column of a webhook data set made before the column was, as its schema says', async () => {
    // Prepare: a data set item as one made before the headers column was stored it.
    const hook = await createWebhook(api);
    useServiceEnvironment();
    const { getDataSet, dataSetItem } = await import('#shared/adapters/dynamo/data-sets.ts');
    const { db, table } = await import('#shared/adapters/dynamo/table.ts');
    const made = await getDataSet(hook.dataSetId);
    if (!made) throw new Error('The webhook has no data set');
    const before = { ...made.schema_json, fields: made.schema_json.fields.filter((field) => field.name !== 'headers') };
    await db.send(new PutCommand({ TableName: table(), Item: dataSetItem({ ...made, schema_json: before }) }));
    // Act
    const answer = await api.get<{ schema_json: { fields: { name: string; type: string; nullable: boolean }[] } }>(
      `/api/data-sets/${hook.dataSetId}`,
    );
    // Assess
    expect(answer.body.schema_json.fields.map((field) => field.name)).toEqual([
      'dt',
      'message_id',
      'ingested_at',
      'source_id',
      'tenant_id',
      'content_type',
      'payload_size',
      'payload',
      'headers',
    ]);
  });
});
