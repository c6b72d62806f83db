import { randomBytes } from 'node:crypto';
import { invalid } from '../errors.ts';

/**
 * The options a tenant may set on its object store; every value is treated as a secret. No external
 * id: the one the platform passes to a tenant's role is the tenant's `aws_external_id`, which the
 * service generates (a tenant choosing it could name another tenant's, the confused deputy).
 */
export const objectStoreOptionKeys = [
  'region',
  'endpoint',
  'force_path_style',
  'access_key_id',
  'secret_access_key',
  'session_token',
  'role_arn',
] as const;
export type ObjectStoreOptionKey = (typeof objectStoreOptionKeys)[number];
export type ObjectStoreOptions = Partial<Record<ObjectStoreOptionKey, string>>;

/**
 * The options that decide where a store's data is: which server answers (`endpoint`), which region's
 * S3 (`region`), and how a bucket is addressed there (`force_path_style`). The others only decide
 * with which credentials it is reached. A table fixed in a store (its storage_location) stays where
 * these said at its first write, so they change only while no data set has its table in the store.
 */
export const placeOptionKeys = [
  'endpoint',
  'region',
  'force_path_style',
] as const satisfies readonly ObjectStoreOptionKey[];

/** The place options whose values differ between two option sets (an endpoint compared as a URL). */
export function changedPlaceOptions(before: ObjectStoreOptions, after: ObjectStoreOptions): ObjectStoreOptionKey[] {
  const same = (key: ObjectStoreOptionKey) => {
    const [a, b] = [before[key], after[key]];
    if (a === undefined || b === undefined || key !== 'endpoint') return a === b;
    try {
      return new URL(a).href === new URL(b).href;
    } catch {
      return a === b;
    }
  };
  return placeOptionKeys.filter((key) => !same(key));
}

export interface ObjectStore {
  object_store_id: string;
  tenant_id: string;
  name: string;
  base_url: string;
  /** Sorted names of the options set; their values are only ever held sealed. */
  option_keys: string[];
  created_at: string;
  updated_at: string;
}

export interface StoredObjectStore extends ObjectStore {
  options_sealed: string;
  /**
   * Whether the store honours conditional writes (If-None-Match), as a probe found it for the
   * store's options of `updated_at`; absent until the first commit to it asks.
   */
  conditional_writes?: { updated_at: string; supported: boolean } | undefined;
  /**
   * How often its place (endpoint, region, force_path_style) changed: a data set's first commit is
   * recorded only while the store is still where that commit wrote (absent: never changed).
   */
  place_version?: number | undefined;
  /**
   * Raised by each data set's first recorded commit in the store: a change of place is made only if
   * none was recorded since the change checked for committed tables (absent: none yet).
   */
  first_commits?: number | undefined;
}

/** The API view: configuration with option keys only, and whether it is the tenant's default. */
export function publicObjectStore(store: ObjectStore, defaultId: string | null) {
  return {
    object_store_id: store.object_store_id,
    name: store.name,
    is_default: store.object_store_id === defaultId,
    configuration: { base_url: store.base_url, option_keys: store.option_keys },
    created_at: store.created_at,
    updated_at: store.updated_at,
  };
}

export interface ParsedBaseUrl {
  bucket: string;
  /** Key prefix without leading or trailing slash; empty for the bucket root. */
  prefix: string;
}

const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/**
 * A prefix's segments: letters, digits and `-_.=+@,!'()`. No `*`, `?` or `$`, which an IAM policy
 * reads as wildcards and variables: a store's session policy names its prefix (store-access.ts).
 */
const segmentPattern = /^[A-Za-z0-9\-_.=+@,!'()]+$/;
/** A prefix's bounds: it is named twice in a session policy (at most 2,048 characters) and in key claims. */
export const maxPrefixSegments = 16;
export const maxPrefixLength = 512;

/**
 * s3://bucket or s3://bucket/prefix, with S3's bucket naming rules and a clean prefix. Directory
 * buckets (`…--x-s3`) are refused: their listings are not in key order and take no StartAfter,
 * which finding a table's checkpoints and cleaning its log rely on.
 */
export function parseBaseUrl(baseUrl: string): ParsedBaseUrl {
  const fail = (message: string) => invalid('The object store base_url is not valid', [{ path: 'base_url', message }]);
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(baseUrl);
  if (!match) throw fail('Must be s3://bucket or s3://bucket/prefix');
  const bucket = match[1] as string;
  if (!bucketPattern.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    throw fail('Not a valid S3 bucket name');
  }
  if (bucket.endsWith('--x-s3'))
    throw fail(
      'A directory bucket cannot hold tables: its listings are not in key order (use a general purpose bucket)',
    );
  const prefix = (match[2] ?? '').replace(/\/+$/, '');
  const segments = prefix === '' ? [] : prefix.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw fail('The prefix must not contain empty, "." or ".." segments');
  }
  if (segments.some((segment) => !segmentPattern.test(segment)))
    throw fail("The prefix may hold letters, digits and -_.=+@,!'() between its slashes");
  if (segments.length > maxPrefixSegments || prefix.length > maxPrefixLength)
    throw fail(`The prefix has at most ${maxPrefixSegments} segments and ${maxPrefixLength} characters`);
  return { bucket, prefix };
}

/**
 * The bucket and key prefix of an S3 location the service wrote itself (a stored base_url, a table's
 * storage location): split, not validated again, which reaching a store needs no more than that.
 */
export function locationParts(location: string): ParsedBaseUrl {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
  if (!match) throw new Error(`Not an S3 location: ${location}`);
  return { bucket: match[1] as string, prefix: (match[2] ?? '').replace(/\/+$/, '') };
}

export function normalizeBaseUrl(baseUrl: string): string {
  const { bucket, prefix } = parseBaseUrl(baseUrl);
  return prefix ? `s3://${bucket}/${prefix}` : `s3://${bucket}`;
}

/**
 * Whether the deployment accepts a custom store endpoint. `allowed` lists host patterns: `minio.internal`
 * or `minio.internal:9000` (that host, on any port or that one), `*.r2.cloudflarestorage.com` (its
 * subdomains), and `loopback` (localhost, 127.0.0.0/8, ::1: local mode's stand-ins). Hosts compare as
 * the URL parser normalises them, so `http://0x7f.1` is 127.0.0.1 and `HTTP://MinIO` is minio.
 * Beyond loopback an endpoint is https: over http the tenant's data, and the signed requests that
 * carry it, would cross the network in clear. A pattern that starts `http://` (`http://minio.internal:9000`)
 * accepts plain http to that host, for an operator whose store sits on a network of its own.
 * Nothing is accepted when the list is empty, which it is on AWS unless the operator says otherwise.
 */
export function endpointAllowed(endpoint: string, allowed: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const loopback = host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  return allowed.some((pattern) => {
    let entry = pattern.trim().toLowerCase();
    if (entry === 'loopback') return loopback;
    const plainHttp = entry.startsWith('http://');
    if (plainHttp) entry = entry.slice('http://'.length);
    if (url.protocol === 'http:' && !plainHttp) return false;
    const match = /^(\*\.)?([^:*\s/]+|\[[0-9a-f:.]+\])(?::(\d+))?$/.exec(entry);
    if (!match) return false;
    const [, wildcard, name = '', wantedPort] = match;
    if (wantedPort && wantedPort !== port) return false;
    return wildcard ? host.endsWith(`.${name}`) : host === name;
  });
}

/**
 * Checks option values as a set; messages name the key, never the value. A custom endpoint must be
 * one the deployment accepts (`allowedEndpoints`, see endpointAllowed).
 */
export function validateOptions(options: ObjectStoreOptions, allowedEndpoints: readonly string[]): void {
  const issues: { path: string; message: string }[] = [];
  const check = (key: ObjectStoreOptionKey, ok: boolean, message: string) => {
    if (options[key] !== undefined && !ok) issues.push({ path: `options.${key}`, message });
  };
  check('region', /^[a-z]{2}(-[a-z]+)+-\d$/.test(options.region ?? ''), 'Not an AWS region name');
  check(
    'endpoint',
    (() => {
      try {
        const url = new URL(options.endpoint ?? '');
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
      } catch {
        return false;
      }
    })(),
    'Must be an http(s) URL without credentials',
  );
  const endpointWellFormed = !issues.some((issue) => issue.path === 'options.endpoint');
  if (options.endpoint !== undefined && endpointWellFormed && !endpointAllowed(options.endpoint, allowedEndpoints)) {
    issues.push({
      path: 'options.endpoint',
      message: 'This deployment does not accept this endpoint (the operator lists the ones it accepts)',
    });
  }
  check(
    'force_path_style',
    options.force_path_style === 'true' || options.force_path_style === 'false',
    'Must be "true" or "false"',
  );
  check(
    'role_arn',
    // IAM's own bound on a role ARN is 2,048 characters: STS refuses a longer one as a store failure would read.
    /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/.test(options.role_arn ?? '') &&
      (options.role_arn ?? '').length <= 2048,
    'Not an IAM role ARN (at most 2,048 characters)',
  );
  if ((options.access_key_id === undefined) !== (options.secret_access_key === undefined)) {
    issues.push({ path: 'options', message: 'access_key_id and secret_access_key go together' });
  }
  if (options.session_token !== undefined && options.access_key_id === undefined) {
    issues.push({ path: 'options.session_token', message: 'Needs access_key_id and secret_access_key' });
  }
  if (options.endpoint === undefined && options.region === undefined) {
    // AWS S3 does not redirect a request signed for another region; download URLs are signed for this one.
    issues.push({ path: 'options.region', message: "Required for a store on AWS S3: the bucket's region" });
  }
  if (issues.length > 0) throw invalid('The object store options are not valid', issues);
}

/** What checking a store's role needs: the platform's account, and STS (shared/adapters/tenant-roles.ts). */
export interface TenantRoleChecks {
  /** The AWS account the platform runs in; null where there is none (local mode). */
  platformAccount(): string | null;
  /** Whether the deployment lets stores name roles of the platform's own account (allowPlatformAccountRoles). */
  platformAccountRolesAllowed(): boolean;
  /** Tries AssumeRole once with this external id (null: with none): true when STS granted it. */
  assumable(roleArn: string, sessionName: string, externalId: string | null): Promise<boolean>;
}

/** A new external id: 128 random bits, in the characters STS accepts. */
export const newExternalId = () => `tributary-${randomBytes(16).toString('hex')}`;

/**
 * The external id of a tenant created before the service generated them: derived from its id, so
 * that it is still the service's choice and the tenant's alone, and reads the same everywhere
 * without a write (a read-only function shows it too). Its role's trust policy must demand it.
 */
export const externalIdOfEarlierTenant = (tenantId: string) => `tributary-${tenantId.replaceAll('-', '')}`;

/**
 * The role a store names must not let the platform act for anyone but this tenant:
 *  1. not a role of the platform's own account (it would lend a tenant the platform's permissions),
 *     unless the deployment allows it;
 *  2. not a role STS lets the platform assume without an external id, nor with one that is not this
 *     tenant's (a fresh one, as another tenant's would be): its trust policy must demand exactly the
 *     tenant's `aws_external_id`. Tried once each; a role that grants either is refused.
 * Messages name the option, never the role or what STS said.
 */
export async function checkStoreRole(
  roles: TenantRoleChecks,
  tenantId: string,
  options: ObjectStoreOptions,
): Promise<void> {
  const roleArn = options.role_arn;
  if (roleArn === undefined) return;
  const refuse = (message: string) =>
    invalid('The object store options are not valid', [{ path: 'options.role_arn', message }]);
  const account = roleArn.split(':')[4];
  if (account !== undefined && account === roles.platformAccount() && !roles.platformAccountRolesAllowed())
    throw refuse("A role of the platform's own account cannot be named (a bucket there is listed in tenantBuckets)");
  const sessionName = storeSessionName(tenantId);
  if (await roles.assumable(roleArn, sessionName, null))
    throw refuse(
      "The role can be assumed without an external id: its trust policy must demand the tenant's aws_external_id (sts:ExternalId, see docs/deploying.md)",
    );
  if (await roles.assumable(roleArn, sessionName, newExternalId()))
    throw refuse(
      "The role can be assumed with another tenant's external id: its trust policy must demand exactly this tenant's aws_external_id",
    );
}

/** The session name the platform uses with a tenant's role and for its stores in shared buckets. */
export const storeSessionName = (tenantId: string) => `tributary-${tenantId}`.slice(0, 64);
