/**
 * The Iceberg REST catalog over Tributary's data sets (CONTRACT §5a), read-only. A namespace is a
 * tenant (one level: its slug); a table is a data set, named by its data_set_id. A tenant's keys see
 * only their own namespace (any other does not exist for them); a PlatformAdmin sees every one.
 *
 * A data set is a table of the catalog from its first commit: before it, it is neither listed nor
 * loadable (NoSuchTableException), so a list never names a table that cannot be loaded.
 */
import type { DataSet } from '../datasets/model.ts';
import { DomainError } from '../errors.ts';
import { canSeeTenant, type Principal } from '../principal.ts';
import type { Tenant } from '../tenants/model.ts';
import { CatalogError, catalogReadOnly, noSuchNamespace, noSuchTable, OAuthError } from './errors.ts';

/** What the catalog serves, in the spec's own words (CatalogConfig.endpoints): clients call nothing else. */
export const catalogEndpoints = [
  'GET /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'HEAD /v1/{prefix}/namespaces/{namespace}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials',
];

/** How a client may read a table's files, as the store it lies in allows. */
export interface TableReadAccess {
  region: string | null;
  endpoint: string | null;
  pathStyle: boolean | null;
  /** Short-lived, read-only, scoped to the table's prefix; null when none are vended (see `withoutCredentials`). */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string; expiresAt: Date } | null;
  /** Why no credentials were vended. */
  withoutCredentials: string | null;
}

export interface LoadedTable {
  metadata_location: string;
  metadata: object;
}

/** What the catalog knows from Tributary's records (namespaces, the list of tables). */
export interface CatalogRecords {
  findTenantBySlug(slug: string): Promise<Tenant | null>;
  getTenant(tenantId: string): Promise<Tenant | null>;
  everyTenant(): Promise<Tenant[]>;
  everyDataSetOfTenant(tenantId: string): Promise<DataSet[]>;
  getDataSet(dataSetId: string): Promise<DataSet | null>;
}

/** …and what loading a table reads from the tenant's store. */
export interface CatalogDeps extends CatalogRecords {
  /** The table's latest Iceberg metadata (brought up to date first); null when there is none. */
  loadTable(dataSet: DataSet): Promise<LoadedTable | null>;
  /** Read access to the data set's files for a client (vended credentials where the store allows them). */
  readAccess(dataSet: DataSet): Promise<TableReadAccess>;
}

export const catalogConfig = () => ({ defaults: {}, overrides: {}, endpoints: catalogEndpoints });

const slugPattern = /^[a-z0-9][a-z0-9-]{0,62}$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The tenant a namespace names, when the caller may see it; NoSuchNamespaceException otherwise. */
export async function visibleNamespace(deps: CatalogRecords, principal: Principal, namespace: string): Promise<Tenant> {
  const tenant = slugPattern.test(namespace) ? await deps.findTenantBySlug(namespace) : null;
  if (!tenant || !canSeeTenant(principal, tenant.tenant_id)) throw noSuchNamespace(namespace);
  return tenant;
}

/**
 * The namespaces the caller sees: its tenant's, or every tenant's for a PlatformAdmin. Namespaces
 * have no children: under a parent, the list is empty (once the parent is known to exist).
 */
export async function listNamespaces(deps: CatalogRecords, principal: Principal, parent: string | undefined) {
  if (parent) {
    await visibleNamespace(deps, principal, parent);
    return { namespaces: [], 'next-page-token': null };
  }
  const tenants = principal.kind === 'platform' ? await deps.everyTenant() : [await deps.getTenant(principal.tenantId)];
  return {
    namespaces: tenants.flatMap((tenant) => (tenant ? [[tenant.slug]] : [])),
    'next-page-token': null,
  };
}

export async function getNamespace(deps: CatalogRecords, principal: Principal, namespace: string) {
  const tenant = await visibleNamespace(deps, principal, namespace);
  return { namespace: [tenant.slug], properties: {} };
}

/**
 * The namespace's tables: its tenant's data sets that have a first commit, but none Iceberg cannot
 * express (loading or HEAD of one answers NoSuchTable, so listing it would name a table that is not).
 */
export async function listTables(deps: CatalogRecords, principal: Principal, namespace: string) {
  const tenant = await visibleNamespace(deps, principal, namespace);
  const dataSets = await deps.everyDataSetOfTenant(tenant.tenant_id);
  return {
    identifiers: dataSets
      .filter((dataSet) => dataSet.version !== null && dataSet.iceberg?.status !== 'Unsupported')
      .map((dataSet) => ({ namespace: [tenant.slug], name: dataSet.data_set_id })),
    'next-page-token': null,
  };
}

async function tableOf(deps: CatalogRecords, principal: Principal, namespace: string, table: string) {
  const tenant = await visibleNamespace(deps, principal, namespace);
  const dataSet = uuidPattern.test(table) ? await deps.getDataSet(table) : null;
  if (!dataSet || dataSet.tenant_id !== tenant.tenant_id || dataSet.version === null)
    throw noSuchTable(namespace, table);
  return dataSet;
}

/** The table's config keys (Iceberg's FileIO properties) for the access its store allows. */
export function storageConfig(access: TableReadAccess): Record<string, string> {
  const config: Record<string, string> = {};
  if (access.region !== null) config['client.region'] = access.region;
  if (access.endpoint !== null) config['s3.endpoint'] = access.endpoint;
  if (access.pathStyle !== null) config['s3.path-style-access'] = String(access.pathStyle);
  if (access.credentials) {
    config['s3.access-key-id'] = access.credentials.accessKeyId;
    config['s3.secret-access-key'] = access.credentials.secretAccessKey;
    config['s3.session-token'] = access.credentials.sessionToken;
    config['s3.session-token-expires-at-ms'] = String(access.credentials.expiresAt.getTime());
  } else if (access.withoutCredentials !== null) {
    config['tributary.vended-credentials'] = `none: ${access.withoutCredentials}`;
  }
  return config;
}

/**
 * Load a table.
 * Input: the namespace, the table, whether the client asked for vended credentials
 * (`X-Iceberg-Access-Delegation: vended-credentials`). Output: Iceberg's LoadTableResult.
 *  1. The namespace must be visible to the caller, the table a data set of its tenant with a commit.
 *  2. The latest metadata, brought up to date with the Delta table; none yet: NoSuchTableException.
 *  3. Asked for credentials: the store's read access for this table (credentials only where the
 *     store is reached through the tenant's role; never the platform's own).
 */
export async function loadTable(
  deps: CatalogDeps,
  principal: Principal,
  request: { namespace: string; table: string; vendCredentials: boolean },
) {
  const dataSet = await tableOf(deps, principal, request.namespace, request.table);
  const loaded = await deps.loadTable(dataSet);
  if (!loaded) throw noSuchTable(request.namespace, request.table);
  const access = request.vendCredentials ? await deps.readAccess(dataSet) : null;
  const config = access ? storageConfig(access) : {};
  return {
    'metadata-location': loaded.metadata_location,
    metadata: loaded.metadata,
    config: access?.credentials
      ? { ...config, 'client.refresh-credentials-endpoint': credentialsEndpoint(request.namespace, request.table) }
      : config,
    ...(access?.credentials ? { 'storage-credentials': [{ prefix: dataSet.storage_location, config }] } : {}),
  };
}

/** Where a client asks for fresh credentials, relative to the catalog's URI (as Iceberg's clients resolve it). */
const credentialsEndpoint = (namespace: string, table: string) =>
  `v1/namespaces/${encodeURIComponent(namespace)}/tables/${encodeURIComponent(table)}/credentials`;

/**
 * Load a table's credentials (the spec's loadCredentials): what a client whose vended credentials near
 * their end (15 minutes) asks for, rather than load the table again.
 * Input: the namespace and the table. Output: `storage-credentials`, one for the table's location, or
 * none where its store vends none.
 *  1. The namespace must be visible to the caller, the table a data set of its tenant with a commit.
 *  2. The store's read access for this table, as loading it vends it; the metadata is not touched.
 */
export async function loadCredentials(
  deps: CatalogRecords & Pick<CatalogDeps, 'readAccess'>,
  principal: Principal,
  namespace: string,
  table: string,
) {
  const dataSet = await tableOf(deps, principal, namespace, table);
  if (dataSet.iceberg?.status === 'Unsupported') throw noSuchTable(namespace, table);
  const access = await deps.readAccess(dataSet);
  return {
    'storage-credentials': access.credentials
      ? [{ prefix: dataSet.storage_location, config: storageConfig(access) }]
      : [],
  };
}

/**
 * Whether the table exists for the caller (HEAD), from its record alone: a committed data set whose
 * table Iceberg can express. Loading it may still write its metadata; asking whether it is there does
 * not, so HEAD needs neither the Delta reader nor the tenant's store.
 */
export async function requireTable(deps: CatalogRecords, principal: Principal, namespace: string, table: string) {
  const dataSet = await tableOf(deps, principal, namespace, table);
  if (dataSet.version === null || dataSet.iceberg?.status === 'Unsupported') throw noSuchTable(namespace, table);
}

export const accessTokenType = 'urn:ietf:params:oauth:token-type:access_token';
const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** How long a client may keep the token before it asks again (it stays usable exactly as long as the key). */
export const tokenSeconds = 3600;

export interface TokenRequest {
  grant_type: string;
  client_id?: string | undefined;
  client_secret?: string | undefined;
  subject_token?: string | undefined;
  scope?: string | undefined;
}

/**
 * The OAuth2 token endpoint (client credentials, and token exchange for a client that renews its token).
 * Input: the form. Output: the token response; the access token is the API key itself.
 *  1. `client_credentials`: the client secret must be a working API key (client_id is free).
 *     Token exchange: the subject token must be one (a token this endpoint issued).
 *  2. The access token is that key: every request is authenticated anew with it, so a revoked key
 *     or a deactivated user stops working at once; no token of ours outlives the key.
 */
export async function exchangeToken(authenticate: (apiKey: string) => Promise<Principal>, form: TokenRequest) {
  let apiKey: string | undefined;
  if (form.grant_type === 'client_credentials') apiKey = form.client_secret;
  else if (form.grant_type === tokenExchange) apiKey = form.subject_token;
  else throw new OAuthError('unsupported_grant_type', 'grant_type must be client_credentials or token exchange');
  if (!apiKey) throw new OAuthError('invalid_request', 'The client secret (a Tributary API key) is missing');
  try {
    await authenticate(apiKey);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'UNAUTHORIZED')
      throw new OAuthError('invalid_client', 'The client secret is not a working Tributary API key');
    throw error;
  }
  return {
    access_token: apiKey,
    token_type: 'bearer',
    expires_in: tokenSeconds,
    issued_token_type: accessTokenType,
    ...(form.scope ? { scope: form.scope } : {}),
  };
}

/**
 * Anything under /iceberg that no catalog route serves: a write (create, update, drop, rename,
 * register, commit, a metrics report) is refused, the catalog being read-only; a read is not found.
 */
export async function refuseCatalogRequest(method: string, path: string): Promise<never> {
  if (method === 'GET' || method === 'HEAD')
    throw new CatalogError('NOT_FOUND', `The catalog serves no ${method} ${path}`, 'NotFoundException');
  throw catalogReadOnly();
}
