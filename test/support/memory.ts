/**
 * In-memory ports for the management use cases, for unit tests: each repository keeps its records
 * in a Map and honours the contract its port documents (a taken slug or email is CONFLICT, a change
 * to something missing is NOT_FOUND, an optimistic version that moved is CONFLICT). No network.
 */

import { createHash } from 'node:crypto';
import { type Action, type AddFile, appendedFiles, rewrittenFiles } from '#delta/kernel/log.ts';
import { applyActions, emptyState } from '#delta/kernel/snapshot.ts';
import { fileView, snapshotView } from '#shared/adapters/table-views.ts';
import type { Connection, Source } from '#shared/domain/connections/model.ts';
import type { SecurityDeps } from '#shared/domain/connections/security-use-cases.ts';
import type { ConnectionRepository } from '#shared/domain/connections/use-cases.ts';
import type { DataSet } from '#shared/domain/datasets/model.ts';
import type { TableSnapshot } from '#shared/domain/datasets/table.ts';
import type { DataSetFiles, DataSetRecords } from '#shared/domain/datasets/use-cases.ts';
import { conflict, invalid, notFound } from '#shared/domain/errors.ts';
import type { ApiKeyRecord, User } from '#shared/domain/identity/model.ts';
import { isActiveTenantAdmin, lastTenantAdmin, normalizeEmail } from '#shared/domain/identity/model.ts';
import type { ApiKeyRepository, UserRepository } from '#shared/domain/identity/ports.ts';
import { queueDataSetDeletion } from '#shared/domain/jobs/maintenance-jobs.ts';
import type { Job } from '#shared/domain/jobs/model.ts';
import type { JobOffers, JobQueue, JobRepository } from '#shared/domain/jobs/ports.ts';
import type { LeaseStore } from '#shared/domain/jobs/run-job.ts';
import type { Page, PageRequest } from '#shared/domain/pagination.ts';
import type { DeployedVersion, Pipeline, PipelineProgress } from '#shared/domain/pipelines/model.ts';
import type { PipelineRepository, SourceWatch } from '#shared/domain/pipelines/ports.ts';
import type { EnvelopeFile, StoredEnvelope } from '#shared/domain/pipelines/run-pipeline.ts';
import type { Principal } from '#shared/domain/principal.ts';
import type { SecretBox } from '#shared/domain/secrets.ts';
import type {
  DashboardConnection,
  DashboardProvisioningQueue,
  DashboardRepository,
} from '#shared/domain/tenants/dashboard.ts';
import type { Tenant } from '#shared/domain/tenants/model.ts';
import type { StoredObjectStore } from '#shared/domain/tenants/object-stores.ts';
import type { ObjectStoreRepository, TenantRepository } from '#shared/domain/tenants/ports.ts';
import type { StorePathClaim } from '#shared/domain/tenants/store-claims.ts';
import type { WikiDocument, WikiRepository } from '#shared/domain/wiki/use-cases.ts';

/** Pages over a list in order; the cursor is the index of the next item. */
export function pageOf<T>(items: T[], page: PageRequest): Page<T> {
  const start = page.cursor ? Number(page.cursor) : 0;
  const end = start + page.limit;
  return { items: items.slice(start, end), nextCursor: end < items.length ? String(end) : null };
}

const copy = <T>(value: T): T => structuredClone(value);

/** Seals by wrapping, bound to its context: opening with another context fails, as the real box does. */
export const memorySecrets: SecretBox = {
  async seal(plaintext, context) {
    return `sealed(${context}):${Buffer.from(plaintext).toString('base64')}`;
  },
  async open(sealed, context) {
    const prefix = `sealed(${context}):`;
    if (!sealed.startsWith(prefix)) throw new Error('The sealed value belongs to another context');
    return Buffer.from(sealed.slice(prefix.length), 'base64').toString();
  },
};

export const platformAdmin: Principal = { kind: 'platform', role: 'PlatformAdmin', userId: null, apiKeyId: 'k0' };

export function tenantPrincipal(
  tenantId: string,
  role: 'TenantAdmin' | 'TenantEditor' | 'TenantViewer',
  userId: string | null = null,
): Principal {
  return { kind: 'tenant', role, tenantId, userId, apiKeyId: `key-of-${userId ?? role}` };
}

/** A stored tenant, Active, with nothing linked unless the test says otherwise. */
export function tenantRecord(overrides: Partial<Tenant> & Pick<Tenant, 'tenant_id'>): Tenant {
  return {
    name: 'Acme',
    slug: 'acme',
    status: 'Active',
    sites: null,
    default_object_store_id: null,
    idp_org_id: null,
    aws_external_id: `tributary-external-id-of-${overrides.tenant_id}`,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** Every management repository over one set of Maps, so that use cases see each other's writes. */
export function memoryStore() {
  /**
   * What each tenant role's trust policy demands of the platform: nothing (`anything`), some external
   * id (`anyExternalId`, a StringLike *), or exactly one; a role not listed trusts no one.
   */
  const roleTrust = new Map<string, 'anything' | 'anyExternalId' | { externalId: string }>();
  /** Path claims by `bucket/path`. */
  const pathClaims = new Map<string, StorePathClaim>();
  /** The deployment's tenantBuckets: where a store without keys or a role may be registered. */
  const tenantBuckets = new Set<string>(['demo-bucket', 'lake', 'lake-two']);
  const tenants = new Map<string, Tenant>();
  const slugs = new Set<string>();
  const stores = new Map<string, StoredObjectStore>();
  const users = new Map<string, User>();
  const emails = new Map<string, string>();
  const apiKeys = new Map<string, ApiKeyRecord & { user_id: string }>();
  const connections = new Map<string, Connection>();
  const sources = new Map<string, Source>();
  const dataSets = new Map<string, DataSet>();
  /** Each data set's Delta commits (version and actions), oldest first: what its `_delta_log/` holds. */
  const logs = new Map<string, { version: number; actions: Action[] }[]>();
  /** The envelopes in each webhook data set's file, by its path. */
  const envelopes = new Map<string, StoredEnvelope[]>();
  const envelopeFile = (add: AddFile): EnvelopeFile => ({
    ...fileView(add),
    readEnvelopes: async () => envelopes.get(add.path) ?? [],
  });
  const stateOf = (dataSet: DataSet, version?: number) => {
    const state = emptyState();
    for (const commit of logs.get(dataSet.data_set_id) ?? [])
      if (version === undefined || commit.version <= version) applyActions(state, commit.version, copy(commit.actions));
    return state;
  };
  const pipelines = new Map<string, Pipeline & PipelineProgress>();
  const deployed = new Map<string, DeployedVersion>();
  /** Watched sources: their watchers, their mark, and whether new rows wait (the sparse index). */
  const watches = new Map<string, { pipelines: Set<string>; marks: number; pending: boolean }>();
  const jobs = new Map<string, Job>();
  /** The messages sent to the jobs queue, oldest first. */
  const dispatched: { jobId: string; offer: number; delaySeconds: number }[] = [];
  /** Each job's latest offer: its number and when it was made (the job's creation for offer 0). */
  const offers = new Map<string, { offer: number; offeredAt: number }>();
  /** Jobs a runner took off the sweep's list of Queued jobs (forgetQueued), in order. */
  const forgottenQueued: string[] = [];
  const documents = new Map<string, WikiDocument>();
  const dashboards = new Map<string, DashboardConnection>();
  const provisioningRequests: string[] = [];
  const files = new Map<string, Map<string, number>>();
  /** Tables a job (or a request) holds: what their partition's lease would say. */
  const heldTables = new Set<string>();
  /** Data sets with envelopes staged for their table's commit. */
  const stagedTables = new Set<string>();
  /** Each data set's failed deliveries, by message id. */
  const failedDeliveries = new Map<string, string[]>();

  const tenantRepository: TenantRepository = {
    async getTenant(tenantId) {
      const tenant = tenants.get(tenantId);
      return tenant ? copy(tenant) : null;
    },
    async listTenants(page) {
      return pageOf([...tenants.values()].map(copy), page);
    },
    async createTenant(tenant) {
      if (slugs.has(tenant.slug)) throw conflict(`A tenant with the slug "${tenant.slug}" already exists`);
      slugs.add(tenant.slug);
      tenants.set(tenant.tenant_id, copy(tenant));
    },
    async moveTenantStatus(tenantId, from, to, now) {
      const tenant = tenants.get(tenantId);
      if (tenant?.status !== from) throw conflict(`The tenant is not ${from}`);
      tenants.set(tenantId, { ...tenant, status: to, updated_at: now.toISOString() });
    },
  };

  const emptyClaim = (bucket: string, path: string): StorePathClaim => ({
    bucket,
    path,
    owner: null,
    beneath: null,
    version: 0,
  });
  /** Writes the claims when each is still at the version before (as the DynamoDB transaction does); false, writing none, when one moved. */
  const claimsAt = (claims: StorePathClaim[]) => {
    const moved = claims.some(
      (claim) => (pathClaims.get(`${claim.bucket}/${claim.path}`)?.version ?? 0) !== claim.version - 1,
    );
    if (!moved) for (const claim of claims) pathClaims.set(`${claim.bucket}/${claim.path}`, copy(claim));
    return !moved;
  };

  const objectStoreRepository: ObjectStoreRepository = {
    async getObjectStore(tenantId, objectStoreId) {
      const store = stores.get(objectStoreId);
      return store?.tenant_id === tenantId ? copy(store) : null;
    },
    async listObjectStores(tenantId, page) {
      return pageOf([...stores.values()].filter((store) => store.tenant_id === tenantId).map(copy), page);
    },
    async countObjectStores(tenantId) {
      return [...stores.values()].filter((store) => store.tenant_id === tenantId).length;
    },
    async getStorePathClaims(bucket, paths) {
      return paths.map((path) => copy(pathClaims.get(`${bucket}/${path}`)) ?? emptyClaim(bucket, path));
    },
    async createObjectStore(store, claims) {
      if (!claimsAt(claims)) return false;
      stores.set(store.object_store_id, copy(store));
      const tenant = tenants.get(store.tenant_id);
      if (tenant && !tenant.default_object_store_id) tenant.default_object_store_id = store.object_store_id;
      return true;
    },
    async setDefaultObjectStore(tenantId, objectStoreId, now) {
      const tenant = tenants.get(tenantId);
      if (!tenant || stores.get(objectStoreId)?.tenant_id !== tenantId) throw notFound('Object store');
      tenants.set(tenantId, { ...tenant, default_object_store_id: objectStoreId, updated_at: now.toISOString() });
    },
    async dataSetsInStore(tenantId, objectStoreId, limit) {
      return [...dataSets.values()]
        .filter(
          (dataSet) =>
            dataSet.tenant_id === tenantId && dataSet.object_store_id === objectStoreId && dataSet.version !== null,
        )
        .map((dataSet) => dataSet.data_set_id)
        .slice(0, limit);
    },
    async replaceObjectStoreOptions(tenantId, objectStoreId, optionKeys, sealed, now, claims, moving) {
      const store = stores.get(objectStoreId);
      if (store?.tenant_id !== tenantId) throw notFound('Object store');
      if (moving && (store.first_commits ?? 0) !== moving.firstCommits) return 'tableCommitted';
      if (!claimsAt(claims)) return 'claimMoved';
      stores.set(objectStoreId, {
        ...store,
        option_keys: optionKeys,
        options_sealed: sealed,
        updated_at: now.toISOString(),
        ...(moving ? { place_version: (store.place_version ?? 0) + 1 } : {}),
      });
      return 'replaced';
    },
  };

  const matches = (user: User, filters: { role?: string | undefined; status?: string | undefined }) =>
    (!filters.role || user.role === filters.role) && (!filters.status || user.status === filters.status);

  const userRepository: UserRepository = {
    async getUser(userId) {
      const user = users.get(userId);
      return user ? copy(user) : null;
    },
    async findUserIdByEmail(email) {
      return emails.get(normalizeEmail(email)) ?? null;
    },
    async listUsersOfTenant(tenantId, filters, page) {
      return pageOf(
        [...users.values()].filter((user) => user.tenant_id === tenantId && matches(user, filters)).map(copy),
        page,
      );
    },
    async listAllUsers(filters, page) {
      return pageOf([...users.values()].filter((user) => matches(user, filters)).map(copy), page);
    },
    async createUser(user) {
      const email = normalizeEmail(user.email);
      if (emails.has(email)) throw conflict('A user with this email already exists');
      emails.set(email, user.user_id);
      users.set(user.user_id, copy(user));
    },
    async updateUser(userId, changes, now) {
      const user = users.get(userId);
      if (!user) throw notFound('User');
      const updated = { ...user, ...changes, updated_at: now.toISOString() };
      // As the table's write: an active TenantAdmin loses the role or the status only beside another.
      const anotherAdmin = [...users.values()].some(
        (other) => other.user_id !== userId && other.tenant_id === user.tenant_id && isActiveTenantAdmin(other),
      );
      if (isActiveTenantAdmin(user) && !isActiveTenantAdmin(updated) && !anotherAdmin) throw lastTenantAdmin();
      users.set(userId, updated);
      return copy(updated);
    },
  };

  const apiKeyRepository: ApiKeyRepository = {
    async createApiKey(record) {
      apiKeys.set(record.api_key_id, copy(record));
    },
    async listApiKeysByUser(userId, page) {
      return pageOf([...apiKeys.values()].filter((key) => key.user_id === userId).map(copy), page);
    },
    async countApiKeysByUser(userId) {
      return [...apiKeys.values()].filter((key) => key.user_id === userId).length;
    },
    async revokeApiKey(userId, apiKeyId) {
      if (apiKeys.get(apiKeyId)?.user_id !== userId) throw notFound('API key');
      apiKeys.delete(apiKeyId);
    },
  };

  const connectionRepository: ConnectionRepository & Omit<SecurityDeps, 'secrets'> = {
    async createConnection(connection, source, dataSet) {
      connections.set(connection.connection_id, copy(connection));
      sources.set(source.source_id, copy(source));
      dataSets.set(dataSet.data_set_id, copy(dataSet));
    },
    async getConnection(connectionId) {
      const connection = connections.get(connectionId);
      return connection ? copy(connection) : null;
    },
    async listConnectionsByTenant(tenantId, page) {
      return pageOf(
        [...connections.values()].filter((connection) => connection.tenant_id === tenantId).map(copy),
        page,
      );
    },
    async changeConnection(connection, change, now) {
      const current = connections.get(connection.connection_id);
      const source = sources.get(connection.source_id);
      if (!current || !source) throw notFound('Connection');
      const at = now.toISOString();
      connections.set(connection.connection_id, {
        ...current,
        ...(change.status ? { status: change.status } : {}),
        ...(change.source_status ? { source_status: change.source_status } : {}),
        ...(change.token ? { token_prefix: change.token.prefix } : {}),
        updated_at: at,
      });
      sources.set(connection.source_id, {
        ...source,
        ...(change.status ? { connection_status: change.status } : {}),
        ...(change.source_status ? { source_status: change.source_status } : {}),
        ...(change.token ? { token_hash: change.token.hash } : {}),
      });
    },
    async deleteConnection(connection) {
      connections.delete(connection.connection_id);
      sources.delete(connection.source_id);
    },
    async getSource(sourceId) {
      const source = sources.get(sourceId);
      return source ? copy(source) : null;
    },
    async setSourceSecurity(sourceId, security) {
      const source = sources.get(sourceId);
      if (!source) throw notFound('Connection');
      sources.set(sourceId, { ...source, security: copy(security) });
    },
  };

  const byPipeline = (dataSet: DataSet, pipelineId: string | undefined) =>
    !pipelineId || (dataSet.origin.type === 'Pipeline' && dataSet.origin.pipeline_id === pipelineId);

  const dataSetRecords: DataSetRecords & { createDataSet(dataSet: DataSet): Promise<void> } = {
    getTenant: tenantRepository.getTenant,
    async getDataSet(dataSetId) {
      const dataSet = dataSets.get(dataSetId);
      return dataSet ? copy(dataSet) : null;
    },
    async createDataSet(dataSet) {
      dataSets.set(dataSet.data_set_id, copy(dataSet));
    },
    async listDataSetsByTenant(tenantId, filters, page) {
      return pageOf(
        [...dataSets.values()]
          .filter((dataSet) => dataSet.tenant_id === tenantId && byPipeline(dataSet, filters.pipelineId))
          .map(copy),
        page,
      );
    },
    async listAllDataSets(filters, page) {
      return pageOf(
        [...dataSets.values()].filter((dataSet) => byPipeline(dataSet, filters.pipelineId)).map(copy),
        page,
      );
    },
    async hasWriter(dataSet) {
      return dataSet.origin.type === 'Webhook'
        ? connections.has(dataSet.origin.connection_id)
        : pipelines.has(dataSet.origin.pipeline_id);
    },
    /** As the lease says: a job of the pipeline's partition dispatched or running. */
    async pipelineRunUnderWay(pipelineId) {
      return [...jobs.values()].some(
        (job) => job.partition_key === pipelineId && (job.status === 'Dispatched' || job.status === 'Running'),
      );
    },
    async deleteLog(dataSetId) {
      logs.delete(dataSetId);
    },
    async deleteDataSetItem(dataSetId) {
      dataSets.delete(dataSetId);
    },
  };

  /** A data set's objects in its store, by key relative to its location. */
  const filesOf = async (dataSet: DataSet): Promise<DataSetFiles> => {
    const objects = files.get(dataSet.data_set_id) ?? new Map<string, number>();
    files.set(dataSet.data_set_id, objects);
    return {
      async list(prefix, options = {}) {
        return [...objects.entries()]
          .filter(([key]) => key.startsWith(prefix))
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .slice(0, options.limit)
          .map(([key, size]) => ({ key, size }));
      },
      async delete(keys) {
        for (const key of keys) objects.delete(key);
      },
      async presignGet(key, expiresInSeconds) {
        return `https://store.example/${dataSet.data_set_id}/${key}?expires=${expiresInSeconds}`;
      },
    };
  };

  const pipelineRepository: PipelineRepository = {
    async createPipeline(pipeline) {
      pipelines.set(pipeline.pipeline_id, {
        ...copy(pipeline),
        output_data_set_id: null,
        checkpoint: null,
        automatic_run: null,
      });
    },
    async getPipeline(pipelineId) {
      const pipeline = pipelines.get(pipelineId);
      return pipeline ? copy(pipeline) : null;
    },
    async listPipelinesByTenant(tenantId, page) {
      return pageOf([...pipelines.values()].filter((pipeline) => pipeline.tenant_id === tenantId).map(copy), page);
    },
    async listAllPipelines(page) {
      return pageOf([...pipelines.values()].map(copy), page);
    },
    async updatePipeline(pipelineId, expectedWorkingVersion, changes, now) {
      const pipeline = pipelines.get(pipelineId);
      if (!pipeline) throw notFound('Pipeline');
      if (pipeline.working_version !== expectedWorkingVersion)
        throw conflict('The pipeline changed meanwhile; read it again and retry');
      pipelines.set(pipelineId, { ...pipeline, ...copy(changes), updated_at: now.toISOString() });
    },
    async deployVersion(snapshot, now) {
      const pipeline = pipelines.get(snapshot.pipeline_id);
      const key = `${snapshot.pipeline_id}#${snapshot.version}`;
      if (!pipeline || pipeline.working_version !== snapshot.version || deployed.has(key))
        throw conflict('The pipeline changed meanwhile; read it again and retry');
      deployed.set(key, copy(snapshot));
      pipelines.set(snapshot.pipeline_id, {
        ...pipeline,
        deployed_version: snapshot.version,
        deployed_at: snapshot.deployed_at,
        updated_at: now.toISOString(),
      });
      if (snapshot.definition.on_new_data) {
        const sourceId = snapshot.definition.source.data_set_id;
        const watch = watches.get(sourceId) ?? { pipelines: new Set<string>(), marks: 0, pending: false };
        watch.pipelines.add(snapshot.pipeline_id);
        watches.set(sourceId, { ...watch, marks: watch.marks + 1, pending: true });
      }
    },
    async getDeployedVersion(pipelineId, version) {
      const snapshot = deployed.get(`${pipelineId}#${version}`);
      return snapshot ? copy(snapshot) : null;
    },
    async deletePipeline(pipelineId) {
      pipelines.delete(pipelineId);
    },
    async saveProgress(pipelineId, expected, progress, now) {
      const pipeline = pipelines.get(pipelineId);
      if (
        !pipeline ||
        JSON.stringify(pipeline.checkpoint) !== JSON.stringify(expected.checkpoint) ||
        pipeline.output_data_set_id !== expected.output_data_set_id
      )
        throw new Error('The pipeline progressed meanwhile (another run, or it was deleted)');
      pipelines.set(pipelineId, { ...pipeline, ...copy(progress), updated_at: now.toISOString() });
    },
    async recordAutomaticRun(pipelineId, previousJobId, run) {
      const pipeline = pipelines.get(pipelineId);
      if (!pipeline || (pipeline.automatic_run?.job_id ?? null) !== previousJobId) return false;
      pipelines.set(pipelineId, { ...pipeline, automatic_run: copy(run) });
      return true;
    },
  };

  const sourceWatch: SourceWatch & { noteNewRows(dataSetId: string): void } = {
    /** What a commit of the data set does (table-storage's recordTableVersion). */
    noteNewRows(dataSetId) {
      const watch = watches.get(dataSetId);
      if (watch && watch.pipelines.size > 0)
        watches.set(dataSetId, { ...watch, marks: watch.marks + 1, pending: true });
    },
    async sourcesWithNewRows() {
      return [...watches.entries()]
        .filter(([, watch]) => watch.pending)
        .map(([dataSetId, watch]) => ({ dataSetId, mark: watch.marks }));
    },
    async watchersOf(dataSetId) {
      return [...(watches.get(dataSetId)?.pipelines ?? [])].sort();
    },
    async unwatch(dataSetId, pipelineId) {
      const watch = watches.get(dataSetId);
      watch?.pipelines.delete(pipelineId);
      if (watch?.pipelines.size === 0) watches.delete(dataSetId);
    },
    async settleNewRows(dataSetId, mark) {
      const watch = watches.get(dataSetId);
      if (!watch || watch.marks !== mark) return false;
      watches.set(dataSetId, { ...watch, pending: false });
      return true;
    },
  };

  const jobMatches = (job: Job, filters: { jobType?: string | undefined; status?: string | undefined }) =>
    (!filters.jobType || job.job_type === filters.jobType) && (!filters.status || job.status === filters.status);

  const jobRepository: JobRepository & JobQueue & JobOffers = {
    async createJob(job) {
      jobs.set(job.job_id, copy(job));
      offers.set(job.job_id, { offer: 0, offeredAt: Date.parse(job.created_at) });
    },
    async getJob(jobId) {
      const job = jobs.get(jobId);
      return job ? copy(job) : null;
    },
    async listJobsByTenant(tenantId, filters, page) {
      return pageOf(
        [...jobs.values()].filter((job) => job.tenant_id === tenantId && jobMatches(job, filters)).map(copy),
        page,
      );
    },
    async listAllJobs(filters, page) {
      return pageOf([...jobs.values()].filter((job) => jobMatches(job, filters)).map(copy), page);
    },
    async moveJob(jobId, from, changes, now) {
      const job = jobs.get(jobId);
      if (!job || !from.includes(job.status)) return null;
      const moved = { ...job, ...copy(changes), updated_at: now.toISOString() };
      jobs.set(jobId, moved);
      return copy(moved);
    },
    async requestCancel(jobId, now) {
      const job = jobs.get(jobId);
      if (job?.status !== 'Running' || job.committing_at) return null;
      const marked = { ...job, cancel_requested_at: now.toISOString() };
      jobs.set(jobId, marked);
      return copy(marked);
    },
    async beginCommit(jobId, now) {
      const job = jobs.get(jobId);
      if (job?.status !== 'Running' || job.cancel_requested_at) return false;
      jobs.set(jobId, { ...job, committing_at: now.toISOString() });
      return true;
    },
    async dispatchJob(jobId, offer, delaySeconds = 0) {
      dispatched.push({ jobId, offer, delaySeconds });
    },
    async latestOffer(jobId) {
      return jobs.has(jobId) ? (offers.get(jobId)?.offer ?? 0) : null;
    },
    // As the table's conditions: only a Queued job, and with `after` only while that is its latest offer.
    async newOffer(jobId, now, after) {
      const latest = offers.get(jobId)?.offer ?? 0;
      if (jobs.get(jobId)?.status !== 'Queued' || (after !== undefined && after !== latest)) return null;
      offers.set(jobId, { offer: latest + 1, offeredAt: now.getTime() });
      return latest + 1;
    },
    async forgetQueued(jobId) {
      forgottenQueued.push(jobId);
    },
    async unansweredOffers(before) {
      return [...jobs.values()].flatMap((job) => {
        const latest = offers.get(job.job_id) ?? { offer: 0, offeredAt: Date.parse(job.created_at) };
        return job.status === 'Queued' && latest.offeredAt < before.getTime()
          ? [{ jobId: job.job_id, offer: latest.offer }]
          : [];
      });
    },
  };

  const wikiKey = (tenantId: string | null, path: string) => `${tenantId ?? 'GLOBAL'}#${path}`;
  const wikiRepository: WikiRepository = {
    async getDocument(tenantId, path) {
      const document = documents.get(wikiKey(tenantId, path));
      return document ? copy(document) : null;
    },
    async putDocument(document) {
      const key = wikiKey(document.tenant_id, document.path);
      const existing = documents.get(key);
      const stored = existing
        ? { ...document, document_id: existing.document_id, created_at: existing.created_at }
        : document;
      documents.set(key, copy(stored));
      return { created: !existing, document: copy(stored) };
    },
    async deleteDocument(tenantId, path) {
      return documents.delete(wikiKey(tenantId, path));
    },
    async listPaths(tenantId, prefix, page) {
      const paths = [...documents.values()]
        .filter((document) => document.tenant_id === tenantId && document.path.startsWith(prefix))
        .map((document) => document.path)
        .sort();
      return pageOf(paths, page);
    },
  };

  const dashboardRepository: DashboardRepository & DashboardProvisioningQueue = {
    async getDashboardConnection(tenantId) {
      const connection = dashboards.get(tenantId);
      return connection ? copy(connection) : null;
    },
    async saveDashboardCredential(connection, credential, previousHash) {
      // As the write's condition: the connection still holds the credential the caller read.
      if ((dashboards.get(connection.tenant_id)?.credential?.hash ?? null) !== previousHash) return false;
      dashboards.set(connection.tenant_id, copy(connection));
      for (const [id, key] of apiKeys) if (previousHash && key.hash === previousHash) apiKeys.delete(id);
      apiKeys.set(credential.api_key_id, {
        ...credential,
        user_id: `dashboard:${connection.tenant_id}`,
        tenant_id: connection.tenant_id,
        role: 'TenantViewer',
        name: 'dashboard',
        last_used_at: null,
      });
      return true;
    },
    async setDashboardStatus(tenantId, status, lastError, now) {
      const connection = dashboards.get(tenantId);
      if (connection)
        dashboards.set(tenantId, { ...connection, status, last_error: lastError, updated_at: now.toISOString() });
    },
    async setDashboardOutcome(tenantId, credentialHash, status, lastError, now) {
      const connection = dashboards.get(tenantId);
      if (connection?.credential?.hash !== credentialHash) return false;
      dashboards.set(tenantId, { ...connection, status, last_error: lastError, updated_at: now.toISOString() });
      return true;
    },
    async requestDashboardProvisioning(tenantId, redeliver) {
      provisioningRequests.push(redeliver ? `${tenantId} redeliver` : tenantId);
    },
  };

  return {
    ...tenantRepository,
    ...objectStoreRepository,
    ...userRepository,
    ...apiKeyRepository,
    ...connectionRepository,
    ...dataSetRecords,
    ...pipelineRepository,
    ...sourceWatch,
    ...jobRepository,
    ...memoryLeases(),
    ...wikiRepository,
    ...dashboardRepository,
    filesOf,
    async hasStagedEnvelopes(dataSetId: string) {
      return stagedTables.has(dataSetId);
    },
    async forgetFailedDeliveries(dataSetId: string) {
      failedDeliveries.delete(dataSetId);
    },
    /** As the data set delete function does: a Delete job, queued. */
    async queueDeletion(dataSet: DataSet) {
      return (await queueDataSetDeletion(jobRepository, dataSet)).job_id;
    },
    /** As the lease does: one holder at a time. */
    async holdTable(dataSetId: string) {
      if (heldTables.has(dataSetId)) return null;
      heldTables.add(dataSetId);
      return async () => {
        heldTables.delete(dataSetId);
      };
    },
    /** The table's state after every commit so far (what a snapshot reader would build). */
    async snapshotOf(dataSet: DataSet, version?: number): Promise<TableSnapshot> {
      return snapshotView(stateOf(dataSet, version));
    },
    /** The live files of that state, their envelopes from `state.envelopes`. */
    async envelopeFiles(dataSet: DataSet, version?: number): Promise<EnvelopeFile[]> {
      return [...stateOf(dataSet, version).files.values()].map(envelopeFile);
    },
    /** Cursors as the service seals them (a MAC over the list and the position), for one list. */
    cursorsOf(list: string) {
      const tag = (payload: string) =>
        createHash('sha256').update(`${list}\n${payload}`).digest('base64url').slice(0, 22);
      return {
        async seal(position: unknown) {
          const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
          return `${payload}.${tag(payload)}`;
        },
        async open(cursor: string) {
          const [payload = '', given] = cursor.split('.');
          if (given !== tag(payload))
            throw invalid('Invalid cursor', [{ path: 'cursor', message: 'Not a cursor returned by this list' }]);
          return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        },
      };
    },
    async commitsAfter(dataSet: DataSet, version: number, maxCommits: number) {
      return (logs.get(dataSet.data_set_id) ?? [])
        .filter((commit) => commit.version > version)
        .slice(0, maxCommits)
        .map((commit) => ({
          version: commit.version,
          added: appendedFiles(copy(commit.actions)).map(envelopeFile),
          removed: rewrittenFiles(copy(commit.actions)).map((remove) =>
            envelopeFile({ ...remove, modificationTime: remove.deletionTimestamp, dataChange: true, stats: null }),
          ),
        }));
    },
    secrets: memorySecrets,
    /**
     * STS as seen from account 999999999999, each role trusting it as state.roleTrust says.
     */
    roles: {
      platformAccount: () => '999999999999',
      platformAccountRolesAllowed: () => false,
      async assumable(roleArn: string, _sessionName: string, externalId: string | null) {
        const trust = roleTrust.get(roleArn);
        if (trust === 'anything') return true;
        if (trust === 'anyExternalId') return externalId !== null;
        return trust !== undefined && externalId === trust.externalId;
      },
    },
    /** As local mode allows: loopback endpoints only. */
    allowedStoreEndpoints: () => ['loopback'],
    /** The buckets the platform reaches with its own role (the deployment's tenantBuckets), as state.tenantBuckets says. */
    tenantBuckets: () => [...tenantBuckets],
    /** What the repositories hold, for assertions. */
    state: {
      roleTrust,
      pathClaims,
      tenantBuckets,
      tenants,
      stores,
      users,
      apiKeys,
      connections,
      sources,
      dataSets,
      logs,
      envelopes,
      pipelines,
      deployed,
      jobs,
      dispatched,
      offers,
      forgottenQueued,
      documents,
      dashboards,
      provisioningRequests,
      files,
      heldTables,
      stagedTables,
      failedDeliveries,
    },
  };
}

/**
 * The leases of job partitions, as the table keeps them: one holder at a time, taken over only once expired and
 * named; the jobs that waited behind a holder handed back at its release.
 */
export function memoryLeases(): LeaseStore & {
  leases: Map<string, { jobId: string; runnerId: string; expiresAt: number; waiting: Set<string> }>;
} {
  const leases = new Map<string, { jobId: string; runnerId: string; expiresAt: number; waiting: Set<string> }>();
  return {
    leases,
    async acquireLease(partitionKey, jobId, runnerId, ttlMs, now, replacing) {
      const held = leases.get(partitionKey);
      const mine = held?.jobId === jobId && held.runnerId === runnerId;
      const takenOver = replacing !== undefined && held?.jobId === replacing && held.expiresAt < now.getTime();
      if (held && !mine && !takenOver) return false;
      leases.set(partitionKey, { jobId, runnerId, expiresAt: now.getTime() + ttlMs, waiting: new Set() });
      return true;
    },
    async leaseHolder(partitionKey) {
      const held = leases.get(partitionKey);
      return held ? { jobId: held.jobId, expiresAt: new Date(held.expiresAt) } : null;
    },
    async renewLease(partitionKey, jobId, ttlMs, now) {
      const held = leases.get(partitionKey);
      if (held?.jobId !== jobId || held.expiresAt < now.getTime()) return false;
      held.expiresAt = now.getTime() + ttlMs;
      return true;
    },
    async waitBehindLease(partitionKey, jobId) {
      const held = leases.get(partitionKey);
      held?.waiting.add(jobId);
      return held !== undefined;
    },
    async releaseLease(partitionKey, jobId, runnerId) {
      const held = leases.get(partitionKey);
      if (held?.jobId !== jobId || held.runnerId !== runnerId) return [];
      leases.delete(partitionKey);
      return [...held.waiting];
    },
    async expiredLeases(now) {
      return [...leases.entries()]
        .filter(([, held]) => held.expiresAt < now.getTime())
        .map(([partitionKey, held]) => ({
          partitionKey,
          jobId: held.jobId,
          runnerId: held.runnerId,
          expiresAt: new Date(held.expiresAt).toISOString(),
        }));
    },
  };
}
