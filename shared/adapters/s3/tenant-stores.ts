/**
 * Tenants' own object stores. A client per store, from its sealed options: static keys, or a role
 * in the tenant's account assumed with its external id, or (neither) the platform's own
 * credentials. A custom endpoint (any S3-compatible store) implies path-style addressing unless
 * the options say otherwise; it is reached only while the deployment accepts it
 * (ALLOWED_STORE_ENDPOINTS, checked at every use), and never with the platform's credentials: a
 * store with an endpoint and no keys or role is reached anonymously (unsigned requests).
 * Clients are cached per store version, so changed options take effect on the next use.
 * Every failure leaves here as a StoreFailure: a category and S3 error code, nothing the store said.
 */
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { STSClient } from '@aws-sdk/client-sts';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { AwsCredentialIdentity } from '@smithy/types';
import { config } from '../../config.ts';
import { downloadUrlSeconds } from '../../domain/datasets/use-cases.ts';
import { ConditionalWritesUnsupported, type TableStorage } from '../../domain/delta/commit.ts';
import {
  endpointAllowed,
  type ObjectStoreOptions,
  type StoredObjectStore,
  storeSessionName,
} from '../../domain/tenants/object-stores.ts';
import { StoreFailure, storeFailureOf } from '../../domain/tenants/store-failures.ts';
import { openObjectStoreOptions } from '../../domain/tenants/use-cases.ts';
import { secretBox } from '../secret-box.ts';
import { deleteObjects } from './delete-objects.ts';
import { objectBytes } from './object-body.ts';

const clients = new Map<string, { client: S3Client; endpoint: string | undefined; anonymous: boolean }>();
let sts: Promise<STSClient> | undefined;

/** STS only for stores reached through a role: loaded on first use, once per instance. */
function stsClient(): Promise<STSClient> {
  sts ??= import('@aws-sdk/client-sts').then(({ STSClient }) => new STSClient({}));
  return sts;
}

/**
 * A presigned URL stops working when the credentials it was signed with expire, so role credentials
 * are handed out as expiring a download URL's lifetime (15 minutes) before they do: the SDK, like this
 * cache, renews credentials 5 minutes before the expiry it is told, so no URL is ever signed with
 * credentials that end before it. A session lasts an hour: a role is assumed again about every 40 minutes.
 */
const reportedEarlyMs = downloadUrlSeconds * 1000;

function assumedRole(options: ObjectStoreOptions, sessionName: string): () => Promise<AwsCredentialIdentity> {
  let cached: AwsCredentialIdentity | undefined;
  return async () => {
    if (cached?.expiration && cached.expiration.getTime() - Date.now() > 5 * 60_000) return cached;
    const { AssumeRoleCommand } = await import('@aws-sdk/client-sts');
    const result = await (await stsClient()).send(
      new AssumeRoleCommand({
        RoleArn: options.role_arn,
        ExternalId: options.external_id,
        RoleSessionName: sessionName.slice(0, 64),
        DurationSeconds: 3600,
      }),
    );
    const credentials = result.Credentials;
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey)
      throw new Error('AssumeRole returned no credentials');
    cached = {
      accessKeyId: credentials.AccessKeyId,
      secretAccessKey: credentials.SecretAccessKey,
      sessionToken: credentials.SessionToken,
      expiration: credentials.Expiration && new Date(credentials.Expiration.getTime() - reportedEarlyMs),
    };
    return cached;
  };
}

export function clientConfig(options: ObjectStoreOptions, sessionName: string): S3ClientConfig {
  const settings: S3ClientConfig = {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    forcePathStyle: options.force_path_style
      ? options.force_path_style === 'true'
      : Boolean(options.endpoint) || config.s3ForcePathStyle(),
    maxAttempts: 3,
    // A bucket in another region than the one given (or registered before a region was required):
    // S3 answers with a redirect naming the bucket's region, which SDK v3 follows only when asked to.
    followRegionRedirects: true,
  };
  if (options.endpoint) settings.endpoint = options.endpoint;
  if (options.access_key_id && options.secret_access_key) {
    settings.credentials = {
      accessKeyId: options.access_key_id,
      secretAccessKey: options.secret_access_key,
      sessionToken: options.session_token,
    };
  } else if (options.role_arn) {
    settings.credentials = assumedRole(options, sessionName);
  } else if (isAnonymous(options)) {
    // Empty credentials, so the default chain (the platform's own) is never resolved, and no signature.
    settings.credentials = { accessKeyId: '', secretAccessKey: '' };
    settings.signer = { sign: async (request) => request };
  }
  return settings;
}

/** A custom endpoint without keys or a role: reached without credentials, never with the platform's. */
function isAnonymous(options: ObjectStoreOptions): boolean {
  return Boolean(options.endpoint) && !(options.access_key_id && options.secret_access_key) && !options.role_arn;
}

async function clientFor(store: StoredObjectStore) {
  const cacheKey = `${store.object_store_id}:${store.updated_at}`;
  let entry = clients.get(cacheKey);
  if (!entry) {
    const options = await openObjectStoreOptions(secretBox, store);
    entry = {
      client: new S3Client(clientConfig(options, storeSessionName(store.tenant_id))),
      endpoint: options.endpoint,
      anonymous: isAnonymous(options),
    };
    clients.set(cacheKey, entry);
  }
  // Checked at every use: a store registered before the deployment stopped accepting its endpoint is not reached.
  if (entry.endpoint !== undefined && !endpointAllowed(entry.endpoint, config.allowedStoreEndpoints())) {
    throw new StoreFailure('ENDPOINT_NOT_ALLOWED');
  }
  return entry;
}

/** A request to the tenant's store; whatever it throws becomes a StoreFailure. */
async function reach<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw storeFailureOf(error);
  }
}

export function parseLocation(location: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
  if (!match) throw new Error(`Not an S3 location: ${location}`);
  return { bucket: match[1] as string, prefix: (match[2] ?? '').replace(/\/+$/, '') };
}

export interface TableLocation extends TableStorage {
  /** Bytes [start, end) of an object: a Parquet footer, a column's pages. */
  getRange(relativeKey: string, start: number, end: number): Promise<Buffer>;
  presignGet(relativeKey: string, expiresInSeconds: number): Promise<string>;
}

/** A Delta table's directory in a tenant store, addressed by keys relative to the table root. */
export async function tableLocation(store: StoredObjectStore, location: string): Promise<TableLocation> {
  const { client, anonymous } = await clientFor(store);
  const { bucket, prefix } = parseLocation(location);
  const keyOf = (relative: string) => (prefix ? `${prefix}/${relative}` : relative);
  const get = (relativeKey: string) =>
    reach(async () =>
      objectBytes(await client.send(new GetObjectCommand({ Bucket: bucket, Key: keyOf(relativeKey) }))),
    );
  return {
    async put(relativeKey, body, contentType) {
      const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      await reach(() =>
        client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: keyOf(relativeKey),
            Body: bytes,
            ContentType: contentType,
            ContentLength: bytes.length,
          }),
        ),
      );
    },
    async putIfAbsent(relativeKey, body, contentType) {
      const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      for (let attempt = 1; ; attempt++) {
        try {
          await client.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: keyOf(relativeKey),
              Body: bytes,
              ContentType: contentType,
              ContentLength: bytes.length,
              IfNoneMatch: '*',
            }),
          );
          return true;
        } catch (error) {
          const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
          const name = (error as Error).name;
          if (status === 412 || name === 'PreconditionFailed') return false;
          // Another conditional write of the key is in flight: S3 asks to try again, and then one has won.
          if ((status === 409 || name === 'ConditionalRequestConflict') && attempt < 6) {
            await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
            continue;
          }
          if (status === 501 || name === 'NotImplemented') throw new ConditionalWritesUnsupported();
          throw storeFailureOf(error);
        }
      }
    },
    get,
    getRange: (relativeKey, start, end) =>
      reach(async () =>
        objectBytes(
          await client.send(
            new GetObjectCommand({ Bucket: bucket, Key: keyOf(relativeKey), Range: `bytes=${start}-${end - 1}` }),
          ),
        ),
      ),
    async getIfExists(relativeKey) {
      try {
        return await get(relativeKey);
      } catch (error) {
        if (error instanceof StoreFailure && error.category === 'NO_SUCH_KEY') return null;
        throw error;
      }
    },
    async delete(relativeKeys) {
      // Throws (a store failure) unless every key is gone: S3 answers a partial delete with 200.
      await reach(() => deleteObjects(client, bucket, relativeKeys.map(keyOf)));
    },
    async list(relativePrefix, options = {}) {
      const found: { key: string; size: number; lastModified: number }[] = [];
      let token: string | undefined;
      do {
        const result = await reach(() =>
          client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: keyOf(relativePrefix),
              ContinuationToken: token,
              StartAfter: options.startAfter === undefined ? undefined : keyOf(options.startAfter),
              MaxKeys: options.limit === undefined ? undefined : Math.min(1000, options.limit - found.length),
            }),
          ),
        );
        for (const object of result.Contents ?? []) {
          found.push({
            key: (object.Key ?? '').slice(prefix ? prefix.length + 1 : 0),
            size: Number(object.Size ?? 0),
            lastModified: object.LastModified?.getTime() ?? 0,
          });
        }
        token = result.IsTruncated ? result.NextContinuationToken : undefined;
      } while (token && (options.limit === undefined || found.length < options.limit));
      return found;
    },
    async presignGet(relativeKey, expiresInSeconds) {
      const url = new URL(
        await reach(() =>
          getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: keyOf(relativeKey) }), {
            expiresIn: expiresInSeconds,
          }),
        ),
      );
      // An anonymous store is read without a signature: the object's own address.
      if (anonymous) {
        for (const name of [...url.searchParams.keys()]) {
          if (name.toLowerCase().startsWith('x-amz-')) url.searchParams.delete(name);
        }
      }
      return url.toString();
    },
  };
}
