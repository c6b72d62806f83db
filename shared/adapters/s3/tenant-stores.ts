/**
 * Tenants' own object stores: an S3 client per store connection, as the domain decided it
 * (shared/domain/tenants/store-access.ts): the tenant's keys, the tenant's role assumed with its
 * external id, the platform's own role for tenant buckets (TENANT_BUCKET_ROLE_ARN, set by the stack for
 * the functions that reach stores, and in local mode from the same template), or no credentials at all.
 * A store for the platform's role is never reached with the function's own credentials (the default
 * chain: its execution role, which reaches the platform bucket and every tenant's staged envelopes):
 * where no role for tenant buckets is set, every request to it fails as ACCESS_DENIED.
 * Every assumed session carries a session policy that scopes it to the store (session-policies.ts).
 * A custom endpoint (any S3-compatible store) implies path-style addressing unless the options say
 * otherwise; it is reached only while the deployment accepts it (ALLOWED_STORE_ENDPOINTS, checked at
 * every use), and never with the platform's credentials.
 * Clients are cached per store version and access, so changed options take effect on the next use.
 * A store that takes no connection within 3 s, or sends nothing for 20 s, fails the attempt
 * (shared/adapters/aws-http.ts). An endpoint behind a firewall that drops connections held a request
 * until its function timed out (the kernel tries a connection for two minutes; API Gateway then
 * answered in its own words): three attempts now take about 10 s, then STORE_UNREACHABLE. One that
 * takes the request and never answers fails after three silences of 20 s, where a job waited up to
 * its fifteen minutes (a route still meets its own 30 s first).
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
import { ConditionalWritesUnsupported } from '#delta/errors.ts';
import type { TableStorage } from '#delta/kernel/storage.ts';
import { config } from '../../config.ts';
import { downloadUrlSeconds } from '../../domain/datasets/use-cases.ts';
import { endpointAllowed, locationParts } from '../../domain/tenants/object-stores.ts';
import type { StoreConnection } from '../../domain/tenants/store-access.ts';
import { StoreFailure } from '../../domain/tenants/store-failures.ts';
import { callLimits, smallCallLimits, transferLimits } from '../aws-http.ts';
import { deleteObjects } from './delete-objects.ts';
import { objectBytes } from './object-body.ts';
import { partitionOf, storeSessionPolicy, tenantBucketsExternalId } from './session-policies.ts';
import { storeFailureOf } from './store-failure-codes.ts';

const clients = new Map<string, { client: S3Client; endpoint: string | undefined; anonymous: boolean }>();
let sts: Promise<STSClient> | undefined;

/** STS only for stores reached through a role: loaded on first use, once per instance. */
function stsClient(): Promise<STSClient> {
  sts ??= import('@aws-sdk/client-sts').then(
    ({ STSClient }) => new STSClient({ requestHandler: callLimits(smallCallLimits) }),
  );
  return sts;
}

/**
 * A presigned URL stops working when the credentials it was signed with expire, so role credentials
 * are handed out as expiring a download URL's lifetime (15 minutes) before they do: the SDK, like this
 * cache, renews credentials 5 minutes before the expiry it is told, so no URL is ever signed with
 * credentials that end before it. A session lasts an hour: a role is assumed again about every 40 minutes.
 */
const reportedEarlyMs = downloadUrlSeconds * 1000;

interface RoleSession {
  roleArn: string;
  externalId: string;
  sessionName: string;
  /** The session policy, as JSON: the session can do no more than it allows. */
  policy: string;
}

function assumedRole(session: RoleSession): () => Promise<AwsCredentialIdentity> {
  let cached: AwsCredentialIdentity | undefined;
  return async () => {
    if (cached?.expiration && cached.expiration.getTime() - Date.now() > 5 * 60_000) return cached;
    const { AssumeRoleCommand } = await import('@aws-sdk/client-sts');
    const result = await (await stsClient()).send(
      new AssumeRoleCommand({
        RoleArn: session.roleArn,
        ExternalId: session.externalId,
        RoleSessionName: session.sessionName.slice(0, 64),
        Policy: session.policy,
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

/** The credentials of a store for the platform's role where this function has none: a store failure, not its own role. */
const noPlatformRole = async (): Promise<AwsCredentialIdentity> => {
  throw new StoreFailure('ACCESS_DENIED');
};

export function clientConfig(connection: StoreConnection): S3ClientConfig {
  const region = connection.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const settings: S3ClientConfig = {
    region,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    forcePathStyle: connection.forcePathStyle ?? (Boolean(connection.endpoint) || config.s3ForcePathStyle()),
    maxAttempts: 3,
    requestHandler: callLimits(transferLimits),
    // A bucket in another region than the one given (or registered before a region was required):
    // S3 answers with a redirect naming the bucket's region, which SDK v3 follows only when asked to.
    followRegionRedirects: true,
  };
  if (connection.endpoint) settings.endpoint = connection.endpoint;
  const policy = JSON.stringify(storeSessionPolicy(connection.scope, partitionOf(region)));
  const { credentials } = connection;
  if (credentials.kind === 'keys') {
    settings.credentials = {
      accessKeyId: credentials.accessKeyId,
      secretAccessKey: credentials.secretAccessKey,
      sessionToken: credentials.sessionToken,
    };
  } else if (credentials.kind === 'tenantRole') {
    settings.credentials = assumedRole({ ...credentials, sessionName: connection.sessionName, policy });
  } else if (credentials.kind === 'platform') {
    const roleArn = config.tenantBucketRole();
    settings.credentials = roleArn
      ? assumedRole({ roleArn, externalId: tenantBucketsExternalId, sessionName: connection.sessionName, policy })
      : // Never undefined: the SDK would resolve the default chain, the function's own role.
        noPlatformRole;
  } else {
    // Empty credentials, so the default chain (the platform's own) is never resolved, and no signature.
    settings.credentials = { accessKeyId: '', secretAccessKey: '' };
    settings.signer = { sign: async (request) => request };
  }
  return settings;
}

function clientFor(connection: StoreConnection) {
  let entry = clients.get(connection.cacheKey);
  if (!entry) {
    entry = {
      client: new S3Client(clientConfig(connection)),
      endpoint: connection.endpoint,
      anonymous: connection.credentials.kind === 'anonymous',
    };
    clients.set(connection.cacheKey, entry);
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

export interface TableLocation extends TableStorage {
  /** Bytes [start, end) of an object: a Parquet footer, a column's pages. */
  getRange(relativeKey: string, start: number, end: number): Promise<Buffer>;
  presignGet(relativeKey: string, expiresInSeconds: number): Promise<string>;
}

/** Whether `prefix` of `bucket` is the store's place or inside it, segment by segment. */
function insideScope(scope: StoreConnection['scope'], bucket: string, prefix: string): boolean {
  return (
    bucket === scope.bucket && (scope.prefix === '' || prefix === scope.prefix || prefix.startsWith(`${scope.prefix}/`))
  );
}

/** Where a table location's requests go: its client and bucket, and its keys under the table root. */
interface Place {
  client: S3Client;
  bucket: string;
  prefix: string;
  keyOf(relative: string): string;
}

/**
 * TableStorage.putIfAbsent: a conditional write (If-None-Match), tried again a few times while another
 * conditional write of the key is in flight.
 */
async function putObjectIfAbsent(
  { client, bucket, keyOf }: Place,
  relativeKey: string,
  body: Uint8Array | string,
  contentType: string,
): Promise<boolean> {
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
}

/** TableStorage.list: keys under a prefix, relative to the table root, page after page up to `limit`. */
async function listObjects(
  { client, bucket, prefix, keyOf }: Place,
  relativePrefix: string,
  options: { startAfter?: string; limit?: number },
): Promise<{ key: string; size: number; lastModified: number }[]> {
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
}

/**
 * A Delta table's directory in a tenant store, addressed by keys relative to the table root. The
 * table must lie in the store: where no session policy can say so (keys, no credentials), this does.
 */
export async function tableLocation(connection: StoreConnection, location: string): Promise<TableLocation> {
  const { bucket, prefix } = locationParts(location);
  if (!insideScope(connection.scope, bucket, prefix))
    throw new Error(`Table location ${location} lies outside object store ${connection.objectStoreId}`);
  const { client, anonymous } = clientFor(connection);
  const keyOf = (relative: string) => (prefix ? `${prefix}/${relative}` : relative);
  const place: Place = { client, bucket, prefix, keyOf };
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
    putIfAbsent: (relativeKey, body, contentType) => putObjectIfAbsent(place, relativeKey, body, contentType),
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
    list: (relativePrefix, options = {}) => listObjects(place, relativePrefix, options),
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
