/**
 * `npm start`: the whole of Tributary on one machine, no AWS account needed.
 *
 *  1. Starts the stand-ins (DynamoDB Local, S3, SQS) on 127.0.0.1, or uses running ones when
 *     LOCAL_STAND_INS=external (endpoints from AWS_ENDPOINT_URL_DYNAMODB/_S3/_SQS).
 *  2. Creates the table, queues and buckets from the same declarations as the stack.
 *  3. Installs the bootstrap key and starts the HTTP front, pollers and schedules.
 *  4. On SIGINT/SIGTERM: stops taking requests, writes what was accepted, keeps the rest on disk.
 */

import path from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { displayPrefix, hashToken } from '#shared/domain/tokens.ts';
import { ensureBuckets, ensureQueues, ensureTable, resolveAdminKey, resolveSecretsKey } from './provision.ts';
import { restoreQueues, saveQueues } from './queue-snapshot.ts';
import { handlerEnvironment, startRuntime } from './runtime.ts';
import { readLocalSettings } from './settings.ts';
import { type Endpoints, localCredentials, localRegion, type StandIns, startStandIns } from './stand-ins.ts';

/** A signal that arrives while the service is still starting is honoured once it has started. */
let onSignal: ((signal: string) => void) | null = null;
let pendingSignal: string | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (onSignal) onSignal(signal);
    else pendingSignal = signal;
  });
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const settings = readLocalSettings();
  const external = process.env.LOCAL_STAND_INS === 'external';
  const log = (line: string) => process.stdout.write(`${line}\n`);

  let standIns: StandIns | null = null;
  let endpoints: Endpoints;
  if (external) {
    endpoints = {
      dynamodb: process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '',
      s3: process.env.AWS_ENDPOINT_URL_S3 ?? '',
      sqs: process.env.AWS_ENDPOINT_URL_SQS ?? '',
    };
    if (!endpoints.dynamodb || !endpoints.s3 || !endpoints.sqs) {
      throw new Error(
        'LOCAL_STAND_INS=external needs AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL_SQS',
      );
    }
  } else {
    standIns = await startStandIns({
      dataDir: settings.dataDir,
      dynamodbPort: settings.dynamodbPort,
      s3Port: settings.s3Port,
      sqsPort: settings.sqsPort,
    });
    endpoints = standIns.endpoints;
  }

  await ensureTable(endpoints.dynamodb, settings.tableName);
  const queueUrls = await ensureQueues(
    endpoints.sqs,
    process.env.LOCAL_QUEUE_PREFIX ?? '',
    settings.visibilityTimeoutSeconds,
  );
  await ensureBuckets(endpoints.s3, [settings.platformBucket, ...settings.buckets]);
  const env = {
    ...handlerEnvironment(settings, endpoints, queueUrls),
    SECRETS_KEY: resolveSecretsKey(settings.dataDir, process.env.SECRETS_KEY),
  };
  Object.assign(process.env, env);

  const admin = resolveAdminKey(settings.dataDir, process.env.ADMIN_API_KEY);
  const { installBootstrapKey } = await import('#shared/adapters/dynamo/api-keys.ts');
  await installBootstrapKey(hashToken(admin.key), displayPrefix(admin.key));

  const sqs = new SQSClient({ endpoint: endpoints.sqs, region: localRegion, credentials: localCredentials });
  const snapshotFile = path.join(settings.dataDir, 'queued-messages.jsonl');
  const restored = standIns ? await restoreQueues(sqs, queueUrls, snapshotFile) : 0;

  const runtime = await startRuntime(settings, env, queueUrls);
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  log(
    [
      `Tributary is running at ${runtime.url} (ready in ${seconds} s)`,
      `  Bootstrap API key (PlatformAdmin): ${admin.key}${admin.generated ? `  [generated; kept in ${path.join(settings.dataDir, 'admin-api-key')}]` : ''}`,
      `  Local S3: ${endpoints.s3}  access key ${localCredentials.accessKeyId}, secret ${localCredentials.secretAccessKey}; buckets: ${settings.buckets.join(', ')}`,
      `  Register a tenant store with {"name": "demo", "base_url": "s3://${settings.buckets[0] ?? 'demo-bucket'}", "options": {"endpoint": "${endpoints.s3}"}}`,
      `  DynamoDB Local: ${endpoints.dynamodb} (table ${settings.tableName})   SQS: ${endpoints.sqs}`,
      `  State: ${settings.dataDir}${restored > 0 ? `  (${restored} queued messages restored from the last stop)` : ''}`,
      '  Ctrl-C stops gracefully: everything already answered 202 is written (or kept on disk) first.',
    ].join('\n'),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping; writing accepted envelopes first…`);
    try {
      const { undrained } = await runtime.stop();
      if (standIns) {
        const saved = await saveQueues(sqs, queueUrls, snapshotFile);
        if (saved > 0) log(`${saved} messages could not be written yet; kept in ${snapshotFile} for the next start.`);
        await standIns.stop();
      } else if (undrained > 0) {
        log(`${undrained} messages remain in the queues for the next consumer.`);
      }
      log('Stopped.');
      process.exit(0);
    } catch (error) {
      process.stderr.write(`Stop failed: ${(error as Error).stack}\n`);
      process.exit(1);
    }
  };
  onSignal = (signal) => void stop(signal);
  if (pendingSignal) onSignal(pendingSignal);
}

main().catch((error: Error) => {
  process.stderr.write(`\nTributary could not start:\n${error.message}\n`);
  process.exit(1);
});
