import { CreateBucketCommand, DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient } from '../support/api.ts';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process.ts';

const api = apiClient();

const errorShape = {
  code: expect.any(String),
  message: expect.any(String),
  details: expect.toSatisfy((value: unknown) => value === null || Array.isArray(value)),
  request_id: expect.any(String),
};

describe('status routes', () => {
  it('answers /live with 200 and an empty body, without a key', async () => {
    const response = await api.get('/live', { key: null });
    expect(response.status).toBe(200);
    expect(response.text).toBe('');
  });

  it('reports every dependency healthy on /health, without a key', async () => {
    const response = await api.get<{ status: string; checks: { name: string; healthy: boolean }[] }>('/health', {
      key: null,
    });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('Healthy');
    expect(response.body.checks.map((check) => check.name).sort()).toEqual(
      ['platform-bucket', 'queue:ingest', 'queue:ingest-dlq', 'table'].sort(),
    );
    expect(response.body.checks.every((check) => check.healthy)).toBe(true);
  });

  it('refuses /metrics without a key and serves Prometheus text to the bootstrap key', async () => {
    const anonymous = await api.get('/metrics', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ ...errorShape, code: 'UNAUTHORIZED' });

    const wrongKey = await api.get('/metrics', { key: 'trb_key_not-a-real-key-0000000000000000000000' });
    expect(wrongKey.status).toBe(401);

    const admin = await api.get('/metrics');
    expect(admin.status).toBe(200);
    expect(admin.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect(admin.text).toContain('# TYPE tributary_ingest_requests_total counter');
  });

  it('serves each source’s series in shards apart from the platform’s, and refuses a shard that is not one', async () => {
    for (const [query, path] of [
      ['shards=3', 'shards'],
      ['shards=4&shard=4', 'shard'],
      ['shard=-1', 'shard'],
      ['shard=1', 'shard'],
      ['shards=two', 'shards'],
      ['shards=2&extra=1', ''],
    ] as const) {
      const refused = await api.get(`/metrics?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body, query).toEqual({ ...errorShape, code: 'VALIDATION_ERROR' });
      if (path) expect((refused.body as { details: { path: string }[] }).details.map((d) => d.path)).toContain(path);
    }
    // The platform's own series (jobs by status, local mode's figures) at GET /metrics only.
    const [platform, first, second] = await Promise.all(
      ['/metrics', '/metrics?shards=2&shard=0', '/metrics?shards=2&shard=1'].map((path) => api.get(path)),
    );
    expect([platform?.status, first?.status, second?.status]).toEqual([200, 200, 200]);
    for (const response of [platform, first, second])
      expect(response?.text).toContain('# TYPE tributary_ingest_requests_total counter');
    expect(platform?.text).toMatch(/^# TYPE tributary_local_access_denied_total counter$/m);
    for (const shard of [first, second]) {
      expect(shard?.text).not.toMatch(/^tributary_jobs\{/m);
      expect(shard?.text).not.toContain('tributary_local_access_denied_total');
    }
  });
});

describe('the error edge', () => {
  it('answers an unknown route with 404 in the error shape', async () => {
    const response = await api.get('/api/no-such-thing');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ ...errorShape, code: 'NOT_FOUND' });
  });

  it('answers a known path with an unknown method with 404', async () => {
    const response = await api.call('PUT', '/api/tenants');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers malformed JSON with 400 INVALID_JSON, never 500', async () => {
    const response = await api.post('/api/tenants', {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ ...errorShape, code: 'INVALID_JSON' });
  });

  it('answers an unknown field and a wrong type with 400 VALIDATION_ERROR naming each field', async () => {
    const response = await api.post('/api/tenants', { json: { name: 42, tenant_id: 'mine' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    const paths = (response.body as { details: { path: string }[] }).details.map((detail) => detail.path).sort();
    expect(paths).toEqual(['name', 'tenant_id']);
  });

  it('answers a body that is not JSON with 415', async () => {
    const response = await api.post('/api/tenants', { raw: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers a body over 1 MiB with 413', async () => {
    const response = await api.post('/api/tenants', { json: { name: 'x'.repeat(1024 * 1024) } });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('a service whose platform bucket is gone', () => {
  const env = inject('runtimeEnv');
  const bucket = `health-${Date.now()}`;
  const s3 = new S3Client({
    endpoint: env.AWS_ENDPOINT_URL_S3,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  let runtime: RuntimeProcess;

  beforeAll(async () => {
    // Every /health request checks anew here (a deployment answers from a result up to 10 s old).
    runtime = await startRuntimeProcess({
      ...env,
      PLATFORM_BUCKET: bucket,
      LOCAL_QUEUE_PREFIX: 'health-',
      TABLE_NAME: 'health-tributary',
      HEALTH_MAX_AGE_SECONDS: '0',
    });
  });
  afterAll(async () => {
    await runtime?.stop();
  });

  it('answers /health with 503 Unhealthy naming the failed check, and recovers with the bucket', async () => {
    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    const failing = await apiClient(runtime.url).get<{ status: string; checks: { name: string; healthy: boolean }[] }>(
      '/health',
      { key: null },
    );
    expect(failing.status).toBe(503);
    expect(failing.body.status).toBe('Unhealthy');
    expect(failing.body.checks.filter((check) => !check.healthy).map((check) => check.name)).toEqual([
      'platform-bucket',
    ]);

    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    const recovered = await apiClient(runtime.url).get('/health', { key: null });
    expect(recovered.status).toBe(200);
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    const code = await runtime.stop();
    expect(code, runtime.output()).toBe(0);
  });
});
