/**
 * `npm run bench memory`: the memory size the ingest function should deploy with. Lambda bills
 * memory × duration and gives a function CPU in proportion to its memory (1,769 MB is one vCPU), so
 * a smaller size costs less per millisecond and may take more of them.
 *
 * The ingest function's bundle, as it deploys, runs as one instance: a process of its own invoked
 * one request at a time, 20 a second (the cost bench's traffic), against the local stand-ins
 * (bench/ingest-invoke.ts). It runs once at full speed, which gives its CPU per request, and, where
 * the machine lets a process hold another's CPU (Linux, a writable cgroup CPU controller), once per
 * size with its CPU held to that size's share by a CFS quota (period 100 ms, the kernel's default;
 * Lambda's own is not documented). The SQS stand-in stays outside the quota, as SQS is outside Lambda.
 *
 * For each size it reports what the cost bench would bill (each request's CPU scaled to the size's
 * share, plus AWS's latency for the queue call, bench/aws-prices.ts), the p50 and p99 that model
 * gives, the p50 and p99 measured under the quota (with the stand-in's latency instead of AWS's:
 * compare them between sizes), the cold start under the quota, and the instance's peak memory.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { bundleFunctions } from '#lib/function-bundles.ts';
import { allFunctions } from '#lib/functions.ts';
import { routes } from '#shared/routes.ts';
import { assumptions, prices } from './aws-prices.ts';
import { createWebhook, startService } from './service.ts';
import { percentile } from './zipf-traffic.ts';

const root = path.resolve(import.meta.dirname, '..');
const ingestEntry = 'functions/ingest/accept.ts';
const sizesMb = [128, 256, 512, 1024];
const periodMicros = 100_000;

interface InstanceRun {
  initMs: number;
  initCpuMs: number;
  cpuMicros: number[];
  durationMs: number[];
  maxRssMb: number;
}

/** Where a process can be held to a share of a CPU: cgroup v2's cpu.max, or v1's CFS quota. */
function cpuControl(): { create(name: string, share: number): { join: string; remove(): void } } | null {
  const v2 = '/sys/fs/cgroup/cgroup.controllers';
  const v1 = '/sys/fs/cgroup/cpu';
  const writable = (directory: string) => {
    try {
      const probe = path.join(directory, `tributary-bench-probe-${process.pid}`);
      mkdirSync(probe);
      rmdirSync(probe);
      return true;
    } catch {
      return false;
    }
  };
  if (existsSync(v2) && readFileSync(v2, 'utf8').includes('cpu') && writable('/sys/fs/cgroup')) {
    return {
      create(name, share) {
        const directory = path.join('/sys/fs/cgroup', name);
        mkdirSync(directory);
        writeFileSync(path.join(directory, 'cpu.max'), `${Math.round(periodMicros * share)} ${periodMicros}`);
        return { join: path.join(directory, 'cgroup.procs'), remove: () => rmdirSync(directory) };
      },
    };
  }
  if (existsSync(path.join(v1, 'cpu.cfs_quota_us')) && writable(v1)) {
    return {
      create(name, share) {
        const directory = path.join(v1, name);
        mkdirSync(directory);
        writeFileSync(path.join(directory, 'cpu.cfs_period_us'), String(periodMicros));
        writeFileSync(path.join(directory, 'cpu.cfs_quota_us'), String(Math.round(periodMicros * share)));
        return { join: path.join(directory, 'tasks'), remove: () => rmdirSync(directory) };
      },
    };
  }
  return null;
}

function runInstance(env: NodeJS.ProcessEnv, args: string[], cgroupTasks?: string): InstanceRun {
  const node = [process.execPath, '--import', 'tsx', path.join(import.meta.dirname, 'ingest-invoke.ts'), ...args];
  // The shell joins the group first, so the instance's cold start is held to the share too.
  const command = cgroupTasks
    ? ['/bin/sh', ['-c', `echo $$ > ${cgroupTasks} && exec "$@"`, 'sh', ...node]]
    : [node[0] as string, node.slice(1)];
  const output = execFileSync(command[0] as string, command[1] as string[], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(output) as InstanceRun;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

export async function benchIngestMemory() {
  const deployedMb = routes['POST /api/ingest/{source_id}'].function.memoryMb;
  const directory = path.join(root, '.bench', 'ingest-memory');
  rmSync(directory, { recursive: true, force: true });
  const ingest = allFunctions().filter((fn) => fn.entry === ingestEntry);
  const [bundle] = await bundleFunctions(ingest, directory);
  if (!bundle) throw new Error('The ingest function did not bundle');

  // The stand-ins and a webhook; the consumers paused, so that only the instance uses the CPU.
  const service = await startService({ LOCAL_POLLERS_PER_CONSUMER: '0' });
  try {
    const hook = await createWebhook(service);
    const endpoint = (port: string | undefined) => `http://127.0.0.1:${port}`;
    const sqs = new SQSClient({
      endpoint: endpoint(service.env.LOCAL_SQS_PORT),
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ingest' }));
    sqs.destroy();
    const env = {
      PATH: process.env.PATH,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_ENDPOINT_URL_DYNAMODB: endpoint(service.env.LOCAL_DYNAMODB_PORT),
      AWS_ENDPOINT_URL_S3: endpoint(service.env.LOCAL_S3_PORT),
      AWS_ENDPOINT_URL_SQS: endpoint(service.env.LOCAL_SQS_PORT),
      S3_FORCE_PATH_STYLE: 'true',
      TABLE_NAME: 'tributary',
      PLATFORM_BUCKET: 'tributary-platform',
      INGEST_QUEUE_URL: QueueUrl,
      SECRETS_KEY: readFileSync(path.join(service.env.DATA_DIR as string, 'secrets-key'), 'utf8').trim(),
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_DISABLED: 'true',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      BENCH_INVOCATIONS: process.env.BENCH_INVOCATIONS ?? '1000',
    };
    const args = [bundle.outfile, hook.sourceId, hook.token];
    const full = runInstance(env, args);

    const control = cpuControl();
    const sizes = sizesMb.map((memoryMb) => {
      const share = Math.min(1, memoryMb / assumptions.fullVcpuMemoryMb);
      const scale = 1 / share;
      const queueWaitMs = assumptions.callLatencyMs.SQS as number;
      const modelled = full.cpuMicros.map((micros) => (micros / 1000) * scale + queueWaitMs);
      const billedMs = mean(modelled.map((ms) => Math.max(1, Math.ceil(ms))));
      const dollarsPerMillion =
        prices.lambda.requestsPerMillion + billedMs * (memoryMb / 1024) * prices.lambda.perGbSecond * 1000;
      let throttled: InstanceRun | null = null;
      if (control) {
        const group = control.create(`tributary-bench-${process.pid}-${memoryMb}`, share);
        try {
          throttled = runInstance(env, args, group.join);
        } finally {
          group.remove();
        }
      }
      return {
        memoryMb,
        share,
        billedMs,
        dollarsPerMillion,
        modelP50: percentile(modelled, 50),
        modelP99: percentile(modelled, 99),
        modelInitMs: full.initCpuMs * scale,
        throttled: throttled && {
          p50: percentile(throttled.durationMs, 50),
          p99: percentile(throttled.durationMs, 99),
          initMs: throttled.initMs,
        },
      };
    });
    return {
      deployedMb,
      invocations: full.cpuMicros.length,
      cpuMicros: {
        mean: mean(full.cpuMicros),
        p50: percentile(full.cpuMicros, 50),
        p99: percentile(full.cpuMicros, 99),
      },
      fullSpeed: { p50: percentile(full.durationMs, 50), p99: percentile(full.durationMs, 99), initMs: full.initMs },
      maxRssMb: full.maxRssMb,
      throttling: control
        ? `a CFS quota of (memory / ${assumptions.fullVcpuMemoryMb} MB) × ${periodMicros / 1000} ms per ${periodMicros / 1000} ms`
        : null,
      sizes,
    };
  } finally {
    await service.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}
