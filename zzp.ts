import autocannon from 'autocannon';
import { createWebhook, startService } from './bench/service.ts';

const service = await startService({
  LOCAL_POLLERS_PER_CONSUMER: '0',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
const hook = await createWebhook(service);
for (let i = 0; i < 2; i++) {
  const r = await autocannon({
    url: `${service.url}/api/ingest/${hook.sourceId}`,
    method: 'POST',
    connections: 50,
    duration: 6,
    headers: { authorization: `Bearer ${hook.token}` },
    body: 'x'.repeat(1024),
  });
  console.log('rps', r.requests.average, 'p50', r.latency.p50, 'p99', r.latency.p99, 'non2xx', r.non2xx);
}
await service.stop();
process.exit(0);
