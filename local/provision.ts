/**
 * Creates what the CDK stateful stack creates on AWS, from the same declarations: the table from
 * shared/adapters/dynamo/table-schema.ts, the queues from shared/topology.ts, and the buckets.
 * Every step is idempotent, so a restart over an existing DATA_DIR keeps its state.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type MessageAttributeValue,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { createTableInput, ttlAttribute } from '#shared/adapters/dynamo/table-schema.ts';
import { keyMaterialMinLength } from '#shared/adapters/key-material.ts';
import { issueToken, isWellFormedToken, tokenPrefixes } from '#shared/domain/tokens.ts';
import { type QueueName, queues } from '#shared/topology.ts';
import { type Endpoints, localCredentials, localRegion } from './stand-ins.ts';

export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: localRegion, credentials: localCredentials });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: ttlAttribute, Enabled: true },
      }),
    );
  } finally {
    client.destroy();
  }
}

export type QueueUrls = Record<QueueName, string>;

const physicalName = (prefix: string, name: QueueName) => `${prefix}${queues[name].name}`;

/** The URLs the local SQS stand-in gives the queues (known before it runs, so handlers can load meanwhile). */
export function standInQueueUrls(endpoint: string, prefix: string): QueueUrls {
  return Object.fromEntries(
    (Object.keys(queues) as QueueName[]).map((name) => [
      name,
      `${endpoint}/000000000000/${physicalName(prefix, name)}`,
    ]),
  ) as QueueUrls;
}

/** Queue names carry a prefix so that several local stacks can share one SQS stand-in (the tests do). */
export async function ensureQueues(
  endpoint: string,
  prefix: string,
  visibilityTimeoutSeconds: number,
): Promise<QueueUrls> {
  const client = new SQSClient({ endpoint, region: localRegion, credentials: localCredentials });
  const urls = {} as QueueUrls;
  // Dead-letter queues first: a redrive policy must name an existing queue.
  const ordered = (Object.keys(queues) as QueueName[]).sort(
    (a, b) => Number(Boolean(queues[a].deadLetter)) - Number(Boolean(queues[b].deadLetter)),
  );
  try {
    for (const name of ordered) {
      const spec = queues[name];
      const attributes: Record<string, string> = {
        VisibilityTimeout: String(visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(spec.retentionDays * 86400),
      };
      if (spec.deadLetter) {
        const dlqUrl = urls[spec.deadLetter.queue];
        const arn = await client.send(
          new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
        );
        attributes.RedrivePolicy = JSON.stringify({
          deadLetterTargetArn: arn.Attributes?.QueueArn,
          maxReceiveCount: spec.deadLetter.maxReceiveCount,
        });
      }
      try {
        const created = await client.send(
          new CreateQueueCommand({ QueueName: physicalName(prefix, name), Attributes: attributes }),
        );
        urls[name] = created.QueueUrl as string;
      } catch (error) {
        // Made by an earlier start with other settings (a visibility timeout set by env): take these.
        if ((error as Error).name !== 'QueueNameExists') throw error;
        const existing = await client.send(new GetQueueUrlCommand({ QueueName: physicalName(prefix, name) }));
        urls[name] = existing.QueueUrl as string;
        await client.send(new SetQueueAttributesCommand({ QueueUrl: urls[name], Attributes: attributes }));
      }
    }
    return urls;
  } finally {
    client.destroy();
  }
}

/**
 * Earlier versions kept the messages still queued at a stop in DATA_DIR/queued-messages.jsonl (their
 * queues lived in memory). Queues are durable now; a file left by such a version is queued once
 * more, then removed. Answers how many messages it held.
 */
export async function importQueueSnapshot(endpoint: string, queueUrls: QueueUrls, file: string): Promise<number> {
  const client = new SQSClient({ endpoint, region: localRegion, credentials: localCredentials });
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  try {
    for (const line of lines) {
      const message = JSON.parse(line) as {
        queue: QueueName;
        body: string;
        attributes: Record<string, MessageAttributeValue>;
      };
      await client.send(
        new SendMessageCommand({
          QueueUrl: queueUrls[message.queue],
          MessageBody: message.body,
          MessageAttributes: Object.keys(message.attributes).length > 0 ? message.attributes : undefined,
        }),
      );
    }
  } finally {
    client.destroy();
  }
  rmSync(file);
  return lines.length;
}

export async function ensureBuckets(endpoint: string, buckets: string[]): Promise<void> {
  const client = new S3Client({
    endpoint,
    region: localRegion,
    credentials: localCredentials,
    forcePathStyle: true,
  });
  try {
    for (const bucket of buckets) {
      try {
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
      } catch (error) {
        const name = (error as Error).name;
        if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
      }
    }
  } finally {
    client.destroy();
  }
}

/**
 * A bootstrap key an operator names, checked as authentication checks every key (`trb_key_` and 43
 * base64url characters, the shape issued keys have): one of any other shape could never be used, and
 * the deploy's rotation refuses it. `from` names where it came from.
 */
function wellFormedKey(key: string, from: string): string {
  if (isWellFormedToken('apiKey', key)) return key;
  throw new Error(
    `${from} must be "${tokenPrefixes.apiKey}" followed by 43 characters of A-Z, a-z, 0-9, "_" and "-", as ` +
      `node -e "console.log('${tokenPrefixes.apiKey}' + crypto.randomBytes(32).toString('base64url'))" prints one ` +
      '(unset it to have one generated).',
  );
}

/**
 * A bootstrap key kept in DATA_DIR (readable by its owner only), generated at first use: what the
 * cost bench installs without a deploy.
 */
export function resolveAdminKey(dataDir: string): { key: string; generated: boolean } {
  const file = path.join(dataDir, 'admin-api-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), generated: false };
  mkdirSync(dataDir, { recursive: true });
  const { token } = issueToken('apiKey');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { key: token, generated: true };
}

/**
 * The bootstrap key an operator names for local mode's deploy (local/deploy/bootstrap-key.ts):
 * ADMIN_API_KEY when set, otherwise the one an earlier start kept in DATA_DIR, otherwise none (the
 * deploy's own stays, as on AWS).
 */
export function namedAdminKey(dataDir: string, fromEnv: string | undefined): string | null {
  if (fromEnv) return wellFormedKey(fromEnv, 'ADMIN_API_KEY');
  const file = path.join(dataDir, 'admin-api-key');
  return existsSync(file) ? wellFormedKey(readFileSync(file, 'utf8').trim(), file) : null;
}

/**
 * Keeps the bootstrap key the deploy left in DATA_DIR (readable by its owner only) when no
 * ADMIN_API_KEY names it, so that the operator finds it there and the next start keeps it.
 */
export function keepAdminKey(dataDir: string, key: string, fromEnv: string | undefined): void {
  const file = path.join(dataDir, 'admin-api-key');
  if (fromEnv || (existsSync(file) && readFileSync(file, 'utf8').trim() === key)) return;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
}

/**
 * The key material that seals stored secrets (object store options, signing secrets): SECRETS_KEY
 * when set, otherwise generated at first start and kept in DATA_DIR. Losing it makes those
 * secrets unreadable, so it lives next to the data it protects.
 */
export function resolveSecretsKey(dataDir: string, fromEnv: string | undefined): string {
  // As the functions read key material (shared/adapters/key-material.ts): checked here, so that a short
  // one stops the start rather than the first store or cursor sealed with it.
  const longEnough = (key: string, from: string) => {
    if (key.trim().length >= keyMaterialMinLength) return key;
    throw new Error(
      `${from} must be at least ${keyMaterialMinLength} characters (unset it to have one generated and kept in DATA_DIR).`,
    );
  };
  if (fromEnv) return longEnough(fromEnv, 'SECRETS_KEY');
  const file = path.join(dataDir, 'secrets-key');
  if (existsSync(file)) return longEnough(readFileSync(file, 'utf8').trim(), file);
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

export type { Endpoints };
