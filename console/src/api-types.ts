/**
 * The API's types, generated from its OpenAPI document (shared/http/openapi.ts) by
 * console/generate-api-types.ts: do not edit. `npm run typecheck` regenerates it.
 */


/** OneOf type helpers */
type Without<T, U> = { [P in Exclude<keyof T, keyof U>]?: never };
type XOR<T, U> = (T | U) extends object ? (Without<T, U> & U) | (Without<U, T> & T) : T | U;
type OneOf<T extends any[]> = T extends [infer Only] ? Only : T extends [infer A, infer B, ...infer Rest] ? OneOf<[XOR<A, B>, ...Rest]> : never;

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface paths {
  "/live": {
    /** Liveness probe: 200 with an empty body while the service answers */
    get: operations["statusLive"];
  };
  "/health": {
    /** Health report: the table, the queues and the platform bucket; 503 when one fails */
    get: operations["statusHealth"];
  };
  "/metrics": {
    /**
     * Prometheus metrics (text format 0.0.4): the platform's and all sources' series, or each source's in shards
     * @description Permission `platform.metrics`, held by: PlatformAdmin.
     */
    get: operations["statusMetrics"];
  };
  "/openapi.json": {
    /** This API as an OpenAPI 3.1 document, generated from the route table and its schemas */
    get: operations["referenceOpenapi"];
  };
  "/docs": {
    /** The API reference as a readable page, built from the same document (no external assets) */
    get: operations["referenceDocs"];
  };
  "/console": {
    /** The operator console: a page that signs in with an API key (kept in the browser tab’s sessionStorage); with `asset`, its script, stylesheet or icon */
    get: operations["consoleServe"];
  };
  "/api/tenants": {
    /**
     * List tenants (a tenant key sees its own tenant only)
     * @description Permission `tenants.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["tenantsList"];
    /**
     * Create a tenant; its slug is derived from the name and unique
     * @description Permission `tenants.create`, held by: PlatformAdmin.
     */
    post: operations["tenantsCreate"];
  };
  "/api/tenants/{tenant_id}": {
    /**
     * Get a tenant
     * @description Permission `tenants.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["tenantsGet"];
  };
  "/api/tenants/{tenant_id}/suspend": {
    /**
     * Suspend a tenant: reads still work; writes and ingest get 422 TENANT_SUSPENDED
     * @description Permission `tenants.suspend`, held by: PlatformAdmin.
     */
    post: operations["tenantsSuspend"];
  };
  "/api/tenants/{tenant_id}/reactivate": {
    /**
     * Reactivate a suspended tenant
     * @description Permission `tenants.suspend`, held by: PlatformAdmin.
     */
    post: operations["tenantsReactivate"];
  };
  "/api/tenants/{tenant_id}/object-stores": {
    /**
     * List the tenant's object stores (option keys only, never their values)
     * @description Permission `object-stores.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["tenantsListObjectStores"];
  };
  "/api/tenants/{tenant_id}/register-object-store": {
    /**
     * Register an S3 object store (s3://bucket[/prefix]); the first one becomes the default. One reached with shared credentials may not overlap another tenant's (409)
     * @description Permission `object-stores.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["tenantsRegisterObjectStore"];
  };
  "/api/tenants/{tenant_id}/select-default-object-store": {
    /**
     * Choose the tenant's default object store (where new data sets are written)
     * @description Permission `object-stores.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["tenantsSelectDefaultObjectStore"];
  };
  "/api/tenants/{tenant_id}/update-object-store-options": {
    /**
     * Replace an object store's options (credentials, endpoint, role); options that make it reached with shared credentials may not overlap another tenant's store (409). Its endpoint, region and force_path_style may not change while a data set has its table in the store (409, naming them); its credentials may
     * @description Permission `object-stores.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["tenantsUpdateObjectStoreOptions"];
  };
  "/api/tenants/{tenant_id}/dashboard-connection": {
    /**
     * The state of the tenant's dashboard connection
     * @description Permission `tenants.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["tenantsGetDashboardConnection"];
  };
  "/api/tenants/{tenant_id}/dashboard-connection/retry": {
    /**
     * Provision the dashboard connection again (status becomes Pending)
     * @description Permission `dashboard.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["tenantsRetryDashboardConnection"];
  };
  "/api/tenants/{tenant_id}/dashboard-connection/rotate": {
    /**
     * Replace the dashboard's read-only credential; the old one stops working at once (also while the tenant is suspended, as a revocation)
     * @description Permission `dashboard.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["tenantsRotateDashboardCredential"];
  };
  "/api/me": {
    /**
     * The caller: its role, tenant, user, API key, and the permissions its role holds
     * @description Permission `self.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["usersMe"];
  };
  "/api/users": {
    /**
     * List users, filtered by tenant, role and status
     * @description Permission `users.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["usersList"];
    /**
     * Create a user (email unique regardless of case; password of at least 12 characters)
     * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["usersCreate"];
  };
  "/api/users/by-email": {
    /**
     * Find a user by email (case-insensitive)
     * @description Permission `users.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["usersGetByEmail"];
  };
  "/api/users/{user_id}": {
    /**
     * Get a user
     * @description Permission `users.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["usersGet"];
  };
  "/api/users/{user_id}/change-role": {
    /**
     * Change a user's role (not your own)
     * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["usersChangeRole"];
  };
  "/api/users/{user_id}/deactivate": {
    /**
     * Deactivate a user: their API keys stop working on the next request
     * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["usersDeactivate"];
  };
  "/api/users/{user_id}/reactivate": {
    /**
     * Reactivate a deactivated user
     * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["usersReactivate"];
  };
  "/api/users/{user_id}/link-external-id": {
    /**
     * Link the user's identity-provider id
     * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["usersLinkExternalId"];
  };
  "/api/users/{user_id}/api-keys": {
    /**
     * List a user's API keys (prefixes, never the keys)
     * @description Permission `api-keys.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    get: operations["usersListApiKeys"];
    /**
     * Issue an API key for a user; the key is shown in this response only
     * @description Permission `api-keys.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["usersCreateApiKey"];
  };
  "/api/users/{user_id}/api-keys/{api_key_id}": {
    /**
     * Revoke an API key; it stops working on the next request
     * @description Permission `api-keys.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    delete: operations["usersRevokeApiKey"];
  };
  "/api/tenants/{tenant_id}/connections": {
    /**
     * List the tenant's connections
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["connectionsList"];
    /**
     * Create a webhook connection; the ingest token is shown in this response only
     * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["connectionsCreate"];
  };
  "/api/connections/{connection_id}": {
    /**
     * Get a connection, with the ingest URL its senders were given
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["connectionsGet"];
    /**
     * Delete a connection and its source; its data set stays
     * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    delete: operations["connectionsDelete"];
  };
  "/api/connections/{connection_id}/regenerate-token": {
    /**
     * Issue a new ingest token; the old one stops working
     * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["connectionsRegenerateToken"];
  };
  "/api/connections/{connection_id}/activate": {
    /**
     * Activate a connection
     * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["connectionsActivate"];
  };
  "/api/connections/{connection_id}/deactivate": {
    /**
     * Deactivate a connection: ingest answers 422 CONNECTION_NOT_ACTIVE
     * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["connectionsDeactivate"];
  };
  "/api/connections/{connection_id}/pause-source": {
    /**
     * Pause the data source: ingest answers 422 SOURCE_PAUSED
     * @description Permission `connections.operate`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["connectionsPauseSource"];
  };
  "/api/connections/{connection_id}/resume-source": {
    /**
     * Resume a paused data source
     * @description Permission `connections.operate`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["connectionsResumeSource"];
  };
  "/api/connections/{connection_id}/security": {
    /**
     * How the source authenticates and protects itself (secrets never shown)
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["connectionsGetSecurity"];
    /**
     * Set bearer or signature authentication, replay and dedup windows, rate limit and IP allowlist
     * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    put: operations["connectionsPutSecurity"];
  };
  "/api/connections/{connection_id}/rotate-signing-secret": {
    /**
     * A new signing secret, shown once; the previous one stays valid for grace_seconds (default 1 day). At most 4 previous secrets are kept in their grace time: a rotation beyond is 409 (grace_seconds 0 ends them all)
     * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
     */
    post: operations["connectionsRotateSigningSecret"];
  };
  "/api/connections/{connection_id}/rejections": {
    /**
     * Ingest requests refused after the source was identified, newest first (the last 1000, 7 days)
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringRejections"];
  };
  "/api/connections/{connection_id}/failed-deliveries": {
    /**
     * Envelopes that exhausted their deliveries, with the last error, newest first
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringFailedDeliveries"];
  };
  "/api/connections/{connection_id}/failed-deliveries/redrive": {
    /**
     * Send failed deliveries (all, or those of the message ids, failure time range or error category given) back to the ingest queue, at most 250 per call (`remaining` says how many wait), with the counts by category; no row is ever written twice
     * @description Permission `connections.operate`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["monitoringRedrive"];
  };
  "/api/connections/{connection_id}/stats": {
    /**
     * Accepted, duplicates, rejected by code, written, dead-lettered, redriven, unaccounted, last ingest and write, oldest unwritten
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringStats"];
  };
  "/api/connections/{connection_id}/stats/history": {
    /**
     * Accepted, rejected by code, written, dead-lettered (and duplicates, redriven) per 15 minutes, hour or day, for up to 30 days back
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringStatsHistory"];
  };
  "/api/tenants/{tenant_id}/stats": {
    /**
     * The tenant’s connections, a page at a time (at most 100), each with its figures as its connection’s stats: one request for an overview instead of one per connection
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringTenantStats"];
  };
  "/api/tenants/{tenant_id}/stats/history": {
    /**
     * The traffic history of all the tenant’s connections added up, as a connection’s
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringTenantStatsHistory"];
  };
  "/api/connections/{connection_id}/events": {
    /**
     * Accepted events read back from the data set, newest first: by message id, time range, bytes the body contains or a JSON value (at most 16 files or 64 MiB of Parquet per request; the cursor goes on, and the answer says how far back it looked)
     * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringEvents"];
  };
  "/api/data-sets/{data_set_id}/runs": {
    /**
     * The commits of a data set, newest first: version, files, rows, bytes, duration, attempt
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["monitoringRuns"];
  };
  "/api/ingest/{source_id}": {
    /**
     * Answer a provider’s GET handshake (Meta’s hub.challenge, Dropbox’s challenge, X’s crc_token, Okta’s verification); any other GET is 404
     * @description Authenticated by the source’s bearer token, or, for a source that verifies signatures only, by the sender’s signature headers.
     */
    get: operations["ingestHandshake"];
    /**
     * Accept a webhook: any body and content type; 202 once it is queued for writing, or 200/204 for a provider’s handshake (Slack, Zoom, Microsoft Graph, Twitch, Discord), stored as no event
     * @description Authenticated by the source’s bearer token, or, for a source that verifies signatures only, by the sender’s signature headers.
     */
    post: operations["ingestAccept"];
  };
  "/api/data-sets": {
    /**
     * List data sets, filtered by tenant and pipeline
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["dataSetsList"];
  };
  "/api/data-sets/{data_set_id}": {
    /**
     * Get a data set
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["dataSetsGet"];
    /**
     * Delete a data set and its files (409 while a connection or pipeline writes to it, its envelopes wait staged or a run of its pipeline is under way): 204 when done; 202 with the job deleting a table of over 1,000 files or 200 versions, or one a maintenance run holds
     * @description Permission `data-sets.delete`, held by: PlatformAdmin, TenantAdmin.
     */
    delete: operations["dataSetsDelete"];
  };
  "/api/data-sets/{data_set_id}/files": {
    /**
     * The files of the data set's latest Delta snapshot, newest first, a page at a time, with download URLs valid 15 minutes
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["dataSetsFiles"];
  };
  "/api/data-sets/{data_set_id}/optimize": {
    /**
     * Start a maintenance run of the data set's table (a job of type Optimize): compacts day partitions with small files, vacuums files removed over 7 days ago
     * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["dataSetsOptimize"];
  };
  "/api/data-sets/{data_set_id}/table-properties": {
    /**
     * The table's properties as its latest version sets them, and those in force (each set one, else its default); any role that reads the data set. A table with no commit yet answers 200 with `version: null`, no properties and the defaults (the deployment's freshness target), as its first commit would start from them
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["dataSetsGetTableProperties"];
    /**
     * Set the table's maintenance properties (checkpoint interval, retentions, compaction target): a new Delta version; a tenant admin's, as retentions decide when files are deleted (409 while a maintenance run or a deletion holds the table)
     * @description Permission `data-sets.delete`, held by: PlatformAdmin, TenantAdmin.
     */
    put: operations["dataSetsPutTableProperties"];
  };
  "/api/data-sets/{data_set_id}/suggest-columns": {
    /**
     * Propose a pipeline's columns (paths, types, names) from the data set's recent payloads: up to `sample` envelopes of its 16 newest files, decoded as `format` would
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    post: operations["dataSetsSuggestColumns"];
  };
  "/api/pipelines": {
    /**
     * List pipelines
     * @description Permission `pipelines.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["pipelinesList"];
    /**
     * Create a pipeline (working version 1, not deployed)
     * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["pipelinesCreate"];
  };
  "/api/pipelines/{pipeline_id}": {
    /**
     * Get a pipeline
     * @description Permission `pipelines.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["pipelinesGet"];
    /**
     * Delete a pipeline; its output data set stays
     * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    delete: operations["pipelinesDelete"];
  };
  "/api/pipelines/{pipeline_id}/update-definition": {
    /**
     * Replace the working definition (validated); the working version moves up by one
     * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["pipelinesUpdateDefinition"];
  };
  "/api/pipelines/{pipeline_id}/deploy": {
    /**
     * Freeze the working definition as the deployed version (409 if `version` is not the working version)
     * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["pipelinesDeploy"];
  };
  "/api/pipelines/{pipeline_id}/enable": {
    /**
     * Enable a pipeline
     * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["pipelinesEnable"];
  };
  "/api/pipelines/{pipeline_id}/disable": {
    /**
     * Disable a pipeline: triggers get 422 PIPELINE_DISABLED
     * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["pipelinesDisable"];
  };
  "/api/pipelines/{pipeline_id}/rename": {
    /**
     * Rename a pipeline
     * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["pipelinesRename"];
  };
  "/api/pipelines/{pipeline_id}/trigger": {
    /**
     * Start a run of the deployed version; with from/to, a re-run replacing those days of the output in one commit (422 when disabled or never deployed)
     * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["pipelinesTrigger"];
  };
  "/api/jobs": {
    /**
     * List jobs, newest first, filtered by tenant, type and status
     * @description Permission `jobs.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["jobsList"];
    /**
     * Start a pipeline run (with from/to: a re-run replacing those days of its output) or a query
     * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["jobsCreate"];
  };
  "/api/jobs/{job_id}": {
    /**
     * Get a job
     * @description Permission `jobs.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["jobsGet"];
  };
  "/api/jobs/{job_id}/cancel": {
    /**
     * Cancel a job: at once when Queued or Dispatched; before its commit when Running
     * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    post: operations["jobsCancel"];
  };
  "/api/jobs/{job_id}/result": {
    /**
     * A query job's rows, once it has succeeded, a page at a time (at most `limit` rows and about 4 MiB)
     * @description Permission `jobs.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["jobsResult"];
  };
  "/api/wiki-documents": {
    /**
     * List document paths, sorted, in the global scope or a tenant’s, optionally under a prefix
     * @description Permission `wiki.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["wikiList"];
  };
  "/api/wiki-documents/{path}": {
    /**
     * Get a document by path (which may contain /)
     * @description Permission `wiki.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["wikiGet"];
    /**
     * Create (201) or replace (200) a document; content up to 256 KiB
     * @description Permission `wiki.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    put: operations["wikiPut"];
    /**
     * Delete a document
     * @description Permission `wiki.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
     */
    delete: operations["wikiDelete"];
  };
  "/iceberg/v1/config": {
    /**
     * The catalog’s configuration: no defaults or overrides, and the endpoints it serves
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["icebergConfig"];
  };
  "/iceberg/v1/oauth/tokens": {
    /** OAuth2 client credentials: the client secret is a Tributary API key, and the access token is that key (it stops working the moment the key is revoked) */
    post: operations["icebergTokens"];
  };
  "/iceberg/v1/namespaces": {
    /**
     * The namespaces the key sees: its tenant’s (a PlatformAdmin’s: every tenant’s), each named by its slug
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["icebergListNamespaces"];
    /**
     * Whether the key may list namespaces: 204 (the catalog answers, and the key reads data sets)
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    head: operations["icebergNamespacesExist"];
  };
  "/iceberg/v1/namespaces/{namespace}": {
    /**
     * A namespace (a tenant, by its slug)
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["icebergGetNamespace"];
    /**
     * Whether the namespace exists for the key: 204, else 404
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    head: operations["icebergNamespaceExists"];
  };
  "/iceberg/v1/namespaces/{namespace}/tables": {
    /**
     * The namespace’s tables: its data sets that have a first commit and that Iceberg can express, each named by its data_set_id
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["icebergListTables"];
  };
  "/iceberg/v1/namespaces/{namespace}/tables/{table}": {
    /**
     * Load a table: its latest metadata (the data set’s latest Delta version) and, with `X-Iceberg-Access-Delegation: vended-credentials`, read access to its files
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["icebergLoadTable"];
    /**
     * Whether the table exists for the key (a committed data set Iceberg can express): 204, else 404
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    head: operations["icebergTableExists"];
  };
  "/iceberg/v1/namespaces/{namespace}/tables/{table}/credentials": {
    /**
     * Fresh vended credentials for a loaded table (the spec’s loadCredentials), which a client asks for before those it has expire: loading a table that vends them names this endpoint in `client.refresh-credentials-endpoint`
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    get: operations["icebergLoadCredentials"];
  };
  "/iceberg/{path}": {
    /**
     * Everything else under /iceberg: a write (create, update, drop, rename, register, commit) is 403 `ForbiddenException`, the catalog being read-only; a read of anything else is 404
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    put: operations["icebergRefusePut"];
    /**
     * Everything else under /iceberg: a write (create, update, drop, rename, register, commit) is 403 `ForbiddenException`, the catalog being read-only; a read of anything else is 404
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    post: operations["icebergRefusePost"];
    /**
     * Everything else under /iceberg: a write (create, update, drop, rename, register, commit) is 403 `ForbiddenException`, the catalog being read-only; a read of anything else is 404
     * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
     */
    delete: operations["icebergRefuseDelete"];
  };
}

export type webhooks = Record<string, never>;

export interface components {
  schemas: {
    Error: {
      /** @enum {string} */
      code: "VALIDATION_ERROR" | "INVALID_FEED" | "INVALID_JSON" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "CONFLICT" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "SOURCE_PAUSED" | "CONNECTION_NOT_ACTIVE" | "OBJECT_STORE_NOT_CONFIGURED" | "OBJECT_STORE_FAILED" | "TENANT_SUSPENDED" | "PIPELINE_DISABLED" | "PIPELINE_NOT_DEPLOYED" | "JOB_NOT_CANCELLABLE" | "TABLE_PROTOCOL_UNSUPPORTED" | "TABLE_SCHEMA_INCOMPATIBLE" | "RATE_LIMITED" | "REQUEST_TIMEOUT" | "HEADERS_TOO_LARGE" | "INTERNAL" | "SERVICE_UNAVAILABLE";
      message: string;
      details: {
          path: string;
          message: string;
        }[] | null;
      request_id: string;
    };
    IcebergError: {
      error: {
        message: string;
        /** @description The exception a client raises: `NoSuchTableException` … */
        type: string;
        code: number;
      };
    };
    OAuthError: {
      /** @enum {string} */
      error: "invalid_request" | "invalid_client" | "unsupported_grant_type" | "server_error";
      error_description: string;
    };
    HealthReport: {
      /** @enum {string} */
      status: "Healthy" | "Unhealthy";
      checks: {
          name: string;
          healthy: boolean;
        }[];
    };
    /** @description An OpenAPI 3.1 document: https://spec.openapis.org/oas/v3.1.0 */
    OpenApiDocument: {
      /** @constant */
      openapi: "3.1.0";
      info: {
        title: string;
        version: string;
        [key: string]: unknown;
      };
      paths: {
        [key: string]: {
          [key: string]: unknown;
        };
      };
      components: {
        [key: string]: unknown;
      };
      [key: string]: unknown;
    };
    Tenant: {
      /** Format: uuid */
      tenant_id: string;
      name: string;
      slug: string;
      /** @enum {string} */
      status: "Active" | "Suspended";
      sites: {
          name: string;
        }[] | null;
      default_object_store_id: string | null;
      idp_org_id: string | null;
      /** @description Generated by the service; passed as sts:ExternalId on every AssumeRole into the tenant's roles. */
      aws_external_id: string;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    ObjectStore: {
      /** Format: uuid */
      object_store_id: string;
      name: string;
      is_default: boolean;
      configuration: {
        base_url: string;
        option_keys: string[];
      };
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    DashboardConnection: {
      /** @enum {string} */
      status: "NotConfigured" | "Pending" | "Active" | "Failed";
      last_error: string | null;
      rotated_at: string | null;
    };
    Caller: {
      /** @enum {string} */
      role: "PlatformAdmin" | "TenantAdmin" | "TenantEditor" | "TenantViewer";
      tenant_id: string | null;
      user_id: string | null;
      api_key_id: string;
      /** @description What the caller's role may do */
      permissions: ("self.read" | "platform.metrics" | "tenants.create" | "tenants.read" | "tenants.suspend" | "object-stores.read" | "object-stores.manage" | "dashboard.manage" | "users.read" | "users.manage" | "api-keys.manage" | "connections.read" | "connections.manage" | "connections.operate" | "data-sets.read" | "data-sets.delete" | "pipelines.read" | "pipelines.write" | "jobs.read" | "jobs.write" | "wiki.read" | "wiki.write")[];
    };
    User: {
      /** Format: uuid */
      user_id: string;
      email: string;
      external_id: string | null;
      /** @enum {string} */
      role: "PlatformAdmin" | "TenantAdmin" | "TenantEditor" | "TenantViewer";
      /** @enum {string} */
      status: "Active" | "Deactivated";
      tenant_id: string | null;
      tenant_name: string | null;
      tenant_slug: string | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    ApiKey: {
      /** Format: uuid */
      api_key_id: string;
      name: string;
      prefix: string;
      /** Format: date-time */
      created_at: string;
      last_used_at: string | null;
    };
    Connection: {
      /** Format: uuid */
      connection_id: string;
      /** Format: uuid */
      tenant_id: string;
      /** @constant */
      type: "Webhook";
      name: string;
      /** @enum {string} */
      status: "Active" | "Inactive";
      source_id: string;
      /** @enum {string} */
      source_status: "Active" | "Paused";
      /** Format: uuid */
      data_set_id: string;
      token_prefix: string;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    ConnectionDetail: {
      /** Format: uuid */
      connection_id: string;
      /** Format: uuid */
      tenant_id: string;
      /** @constant */
      type: "Webhook";
      name: string;
      /** @enum {string} */
      status: "Active" | "Inactive";
      source_id: string;
      /** @enum {string} */
      source_status: "Active" | "Paused";
      /** Format: uuid */
      data_set_id: string;
      token_prefix: string;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
      /** @description The URL its senders were given at creation, which URL-signing providers (Twilio, Square, HubSpot) sign; null for a connection made before it was kept */
      ingest_url: string | null;
    };
    SourceSecurity: {
      /** @enum {string} */
      auth_mode: "bearer" | "signature" | "bearer_and_signature";
      dedup_window_seconds: number;
      rate_limit: {
        requests_per_second: number;
        burst: number;
      } | null;
      ip_allowlist: string[] | null;
      dedup_key: ({
        header: string;
      } | {
        json_pointer: string;
      }) | null;
      signature: ({
        /** @enum {string} */
        scheme: "standard-webhooks" | "github" | "stripe" | "hmac-sha256" | "slack" | "meta" | "zoom" | "microsoft-graph" | "twilio" | "square" | "hubspot" | "linear" | "paddle" | "sendgrid" | "shopify" | "gitlab" | "intercom" | "pagerduty" | "typeform" | "calendly" | "mailgun" | "dropbox" | "clerk" | "resend" | "svix" | "zendesk" | "jira" | "bitbucket" | "twitch" | "discord" | "woocommerce" | "postmark" | "mailchimp" | "airtable" | "notion" | "vercel" | "sentry" | "okta" | "plaid" | "x" | "box" | "netlify";
        header: string | null;
        encoding: ("hex" | "base64") | null;
        tolerance_seconds: number | null;
        public_key: string | null;
        verify_token_set: boolean;
        secrets: ({
            created_at: string;
            expires_at: string | null;
          })[];
      }) | null;
      signing_secret?: string;
    };
    Rejection: {
      /** Format: date-time */
      at: string;
      status: number;
      code: string;
      content_type: string | null;
      payload_size: number;
      headers: {
        [key: string]: string;
      };
    };
    FailedDelivery: {
      /** Format: uuid */
      message_id: string;
      /** Format: date-time */
      failed_at: string;
      attempts: number;
      last_error: string;
    };
    ConnectionStats: {
      /** @description Requests answered 202 */
      accepted: number;
      /** @description Of those, repeats of an earlier request inside its deduplication window: they add no row */
      duplicates: number;
      rejected: {
        [key: string]: number;
      };
      written_rows: number;
      /** @description Staged envelopes left out of the table because their day was already past the table's data retention, ever */
      expired_rows: number;
      /** @description Staged envelopes set aside unwritten because their staged object was gone at their last commit attempt: lost, ever */
      lost_rows: number;
      /** @description Envelopes that exhausted their deliveries, ever */
      dead_lettered: number;
      /** @description Failed deliveries put back on the ingest queue, ever */
      redriven: number;
      /** @description Failed deliveries deleted without a redrive, ever: their day was past the data retention (or their data set was deleted). They stay counted in dead_lettered; those waiting for a redrive are dead_lettered − redriven − deleted_dead_letters */
      deleted_dead_letters: number;
      /** @description accepted − duplicates − written_rows − expired_rows − lost_rows − (dead_lettered − redriven): envelopes on the ingest queue or staged (staged_rows) while they wait for their commit; a figure above staged_rows once the queue is idle means envelopes went missing */
      unaccounted: number;
      last_ingest_at: string | null;
      last_write_at: string | null;
      /** @description Accepted envelopes staged and not yet committed to the table (listed as pending events) */
      staged_rows: number;
      oldest_unwritten_age_seconds: number | null;
      /** @description Why the last commit of the staged envelopes failed; they are tried again, five times in all */
      commit_failure: {
        attempts: number;
        last_error: string;
      } | null;
    };
    TrafficHistory: {
      /**
       * Format: date-time
       * @description Start of the first interval
       */
      from: string;
      /**
       * Format: date-time
       * @description End of the last interval
       */
      to: string;
      step_seconds: number;
      /** @description Every interval of the range, oldest first */
      intervals: components["schemas"]["HistoryInterval"][];
    };
    HistoryInterval: {
      /** Format: date-time */
      start: string;
      /** @description Requests answered 202 in the interval */
      accepted: number;
      duplicates: number;
      /** @description Refused requests by code */
      rejected: {
        [key: string]: number;
      };
      written_rows: number;
      dead_lettered: number;
      redriven: number;
    };
    TenantConnectionStats: {
      connections: {
          connection: components["schemas"]["Connection"];
          stats: components["schemas"]["ConnectionStats"];
        }[];
      next_cursor: string | null;
    };
    TenantTrafficHistory: {
      /**
       * Format: date-time
       * @description Start of the first interval
       */
      from: string;
      /**
       * Format: date-time
       * @description End of the last interval
       */
      to: string;
      step_seconds: number;
      /** @description Every interval of the range, oldest first */
      intervals: components["schemas"]["HistoryInterval"][];
      /** @description Connections whose traffic is added up */
      connections: number;
    };
    Event: {
      /** Format: uuid */
      message_id: string;
      /** Format: date-time */
      received_at: string;
      content_type: string | null;
      payload_size: number;
      /** @description The body as received, base64: whole up to 32 KiB in lists and 1 MiB for a message id, else its start */
      payload: string;
      payload_truncated: boolean;
      /** @description Accepted and staged, not yet in a commit of the table: readers of the table do not see it until its next commit */
      pending: boolean;
      /** @description The request headers as received (names lowercase), without credentials (authorization, cookies, signature headers); null for events stored before headers were kept */
      headers: {
        [key: string]: string;
      } | null;
      /** @description The provider's event type, where the connection's signature preset says it puts one (GitHub: the X-GitHub-Event header; Stripe: the body's type); else null */
      event_type: string | null;
    };
    Run: {
      /** Format: uuid */
      run_id: string;
      version: number;
      files: number;
      rows: number;
      bytes: number;
      /** Format: date-time */
      started_at: string;
      completed_at: string | null;
      duration_ms: number | null;
      attempt: number;
    };
    HandshakeAnswer: {
      challenge: string;
    } | {
      plainToken: string;
      encryptedToken: string;
    };
    IngestAccepted: {
      /** Format: uuid */
      message_id: string;
    };
    HandshakeChallenge: {
      response_token: string;
    } | {
      verification: string;
    };
    DataSet: {
      /** Format: uuid */
      data_set_id: string;
      /** Format: uuid */
      tenant_id: string;
      tenant_slug: string;
      object_store_id: string | null;
      name: string;
      /** @constant */
      data_set_type: "Delta";
      /** @constant */
      storage_tier: "Tributary";
      storage_location: string | null;
      /** @enum {string} */
      status: "Pending" | "Active";
      origin: {
        /** @constant */
        type: "Webhook";
        /** Format: uuid */
        connection_id: string;
        source_id: string;
      } | {
        /** @constant */
        type: "Pipeline";
        /** Format: uuid */
        pipeline_id: string;
        pipeline_version: number;
      };
      partitioning: {
        columns: string[];
        /** @constant */
        granularity: "day";
      };
      schema_json: {
        /** @constant */
        type: "struct";
        fields: {
            name: string;
            type: string;
            nullable: boolean;
            metadata: Record<string, never>;
          }[];
      };
      version: number | null;
      /** @description The same table as Apache Iceberg v2 metadata; null before the first commit (Behind until its first sync) */
      iceberg: ({
        /** @description The latest Iceberg metadata file (`<storage_location>/metadata/v<N>.metadata.json`) */
        metadata_location: string | null;
        /** @description The Delta version that metadata mirrors */
        delta_version: number | null;
        /**
         * @description Current: mirrors delta_version, the latest; Behind: a newer Delta version is synced within minutes; Unsupported: the table has a feature Iceberg cannot express (reason); Failed: the last sync failed (reason: a stable category), the next one tries again
         * @enum {string}
         */
        status: "Current" | "Behind" | "Unsupported" | "Failed";
        reason: string | null;
        /** Format: date-time */
        synced_at: string;
      }) | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    DataSetFiles: {
      /** @description The snapshot listed: every page of one listing is of this version */
      version: number | null;
      /** @description Newest first, at most `limit` per page */
      files: {
          path: string;
          partition_values: {
            [key: string]: string;
          };
          size: number;
          num_records: number;
          url: string;
        }[];
      next_cursor: string | null;
    };
    CurrentTableProperties: {
      /** @description null before anything is committed to the table */
      version: number | null;
      /** @description The table's metaData.configuration as its latest version has it */
      properties: {
        [key: string]: string;
      };
      /** @description What applies: each property set, else its default (freshness: the deployment’s) */
      effective: {
        checkpoint_interval: number;
        deleted_file_retention_seconds: number;
        log_retention_seconds: number;
        target_file_size: number;
        optimize_min_files: number;
        freshness_seconds: number;
        /** @description Day partitions whose rows are all older than this are removed by maintenance (tributary.dataRetention, else the deployment default); null: kept */
        data_retention_seconds: number | null;
      };
    };
    TableProperties: {
      version: number;
      properties: {
        [key: string]: string;
      };
      effective: {
        checkpoint_interval: number;
        deleted_file_retention_seconds: number;
        log_retention_seconds: number;
        target_file_size: number;
        optimize_min_files: number;
        freshness_seconds: number;
        /** @description Day partitions whose rows are all older than this are removed by maintenance (tributary.dataRetention, else the deployment default); null: kept */
        data_retention_seconds: number | null;
      };
    };
    ColumnSuggestion: {
      decode: {
        /** @enum {string} */
        format: "json" | "xml" | "form" | "ndjson" | "auto";
      };
      sampled_envelopes: number;
      sampled_rows: number;
      formats: {
        [key: string]: number;
      };
      rows_rejected: number;
      rejection_samples: {
          message_id: string;
          reason: string;
        }[];
      columns: ({
          name: string;
          path: string;
          /** @enum {string} */
          type: "string" | "long" | "double" | "boolean" | "timestamp";
          /** @description Sampled rows with a value at the path */
          seen: number;
        })[];
      more_paths: number;
    };
    Pipeline: {
      /** Format: uuid */
      pipeline_id: string;
      /** Format: uuid */
      tenant_id: string;
      name: string;
      definition: ({
        source: {
          /** Format: uuid */
          data_set_id: string;
        };
        decode: {
          /** @enum {string} */
          format: "json" | "xml" | "form" | "ndjson" | "auto";
        };
        /** @description Keeps the rows whose value at `path` equals `equals` (at most 4,096 bytes of JSON) */
        where?: {
          path: string;
          equals: components["schemas"]["JsonValue"];
        };
        columns: ({
            name: string;
            path: string;
            /** @enum {string} */
            type: "string" | "long" | "double" | "boolean" | "timestamp";
          })[];
        output: {
          name: string;
        };
        on_new_data?: boolean;
      }) | null;
      /** @enum {string} */
      status: "Active" | "Disabled";
      /** Format: uuid */
      working_set_id: string;
      working_version: number;
      deployed_version: number;
      deployed_at: string | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    /** @description Any JSON value */
    JsonValue: JsonValue;
    Job: {
      /** Format: uuid */
      job_id: string;
      /** Format: uuid */
      tenant_id: string;
      /** @enum {string} */
      job_type: "Pipeline" | "Query" | "Optimize" | "Delete";
      /** @enum {string} */
      status: "Queued" | "Dispatched" | "Running" | "Succeeded" | "Failed" | "Cancelled";
      partition_key: string;
      payload: unknown;
      source: unknown;
      runner_id: string | null;
      error_message: string | null;
      rows_in: number | null;
      rows_out: number | null;
      rows_rejected: number | null;
      /** @description Rows the definition's `where` left out */
      rows_filtered: number | null;
      rejection_samples: {
          message_id: string;
          reason: string;
        }[];
      cancel_requested_at: string | null;
      committing_at: string | null;
      /** Format: date-time */
      created_at: string;
      dispatched_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      cancelled_at: string | null;
      /** Format: date-time */
      updated_at: string;
    };
    QueryResult: {
      columns: {
          name: string;
          type: string;
        }[];
      /** @description This page: at most `limit` rows and 4 MiB of JSON as the Lambda response carries it */
      rows: ((string | number | boolean | null)[])[];
      /** @description The query stopped before it read every row (`truncated_by` says why) */
      truncated: boolean;
      /** @description What stopped it: its row limit, the 16 MiB of JSON a result may hold, or how much a query reads (4 GiB of the data set’s files, 10 minutes; `scanned` says how far it got); null when not truncated */
      truncated_by: ("limit" | "size" | "scan") | null;
      /** @description How much of the data set the query read, oldest file first: files and bytes of Parquet, of those its snapshot had; null for results stored before it was kept */
      scanned: {
        files: number;
        files_total: number;
        bytes: number;
        bytes_total: number;
      } | null;
      /** @description Cells of this page answered as null because their row alone would not fit a page */
      omitted_cells: number;
      /** @description Those cells: the row’s index on this page and the column’s name */
      omitted: {
          row: number;
          column: string;
        }[];
      next_cursor: string | null;
    };
    WikiDocument: {
      /** Format: uuid */
      document_id: string;
      path: string;
      content: string;
      tenant_id: string | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}

export type $defs = Record<string, never>;

export type external = Record<string, never>;

export interface operations {

  /** Liveness probe: 200 with an empty body while the service answers */
  statusLive: {
    responses: {
      /** @description OK */
      200: {
        content: never;
      };
      /** @description A request body, which this operation does not take. Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /** Health report: the table, the queues and the platform bucket; 503 when one fails */
  statusHealth: {
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["HealthReport"];
        };
      };
      /** @description A request body, which this operation does not take. Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Unhealthy */
      503: {
        content: {
          "application/json": components["schemas"]["HealthReport"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Prometheus metrics (text format 0.0.4): the platform's and all sources' series, or each source's in shards
   * @description Permission `platform.metrics`, held by: PlatformAdmin.
   */
  statusMetrics: {
    parameters: {
      query?: {
        shards?: number;
        shard?: number;
      };
    };
    responses: {
      /** @description Counters and gauges in the Prometheus text format */
      200: {
        content: {
          "text/plain; version=0.0.4": string;
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /** This API as an OpenAPI 3.1 document, generated from the route table and its schemas */
  referenceOpenapi: {
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["OpenApiDocument"];
        };
      };
      /** @description A request body, which this operation does not take. Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /** The API reference as a readable page, built from the same document (no external assets) */
  referenceDocs: {
    responses: {
      /** @description The API reference page */
      200: {
        content: {
          "text/html; charset=utf-8": string;
        };
      };
      /** @description A request body, which this operation does not take. Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /** The operator console: a page that signs in with an API key (kept in the browser tab’s sessionStorage); with `asset`, its script, stylesheet or icon */
  consoleServe: {
    parameters: {
      query?: {
        asset?: "console.js" | "console.css" | "icon.svg";
      };
    };
    responses: {
      /** @description The console page (or, with `asset`, its script, stylesheet or icon) */
      200: {
        content: {
          "text/html; charset=utf-8": string;
          "text/javascript; charset=utf-8": string;
          "text/css; charset=utf-8": string;
          "image/svg+xml": string;
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List tenants (a tenant key sees its own tenant only)
   * @description Permission `tenants.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  tenantsList: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            tenants: components["schemas"]["Tenant"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Create a tenant; its slug is derived from the name and unique
   * @description Permission `tenants.create`, held by: PlatformAdmin.
   */
  tenantsCreate: {
    requestBody: {
      content: {
        "application/json": {
          name: string;
          sites?: {
              name: string;
            }[] | null;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            /** Format: uuid */
            tenant_id: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Get a tenant
   * @description Permission `tenants.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  tenantsGet: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["Tenant"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Suspend a tenant: reads still work; writes and ingest get 422 TENANT_SUSPENDED
   * @description Permission `tenants.suspend`, held by: PlatformAdmin.
   */
  tenantsSuspend: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Reactivate a suspended tenant
   * @description Permission `tenants.suspend`, held by: PlatformAdmin.
   */
  tenantsReactivate: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List the tenant's object stores (option keys only, never their values)
   * @description Permission `object-stores.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  tenantsListObjectStores: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            object_stores: components["schemas"]["ObjectStore"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Register an S3 object store (s3://bucket[/prefix]); the first one becomes the default. One reached with shared credentials may not overlap another tenant's (409)
   * @description Permission `object-stores.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  tenantsRegisterObjectStore: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description s3://bucket or s3://bucket/prefix: at most 16 segments and 512 characters of letters, digits and -_.=+@,!'(); no directory bucket (…--x-s3). A store reached with shared credentials (no keys, no role) may not overlap another tenant's such store: the same prefix, one inside the other, or the whole bucket over a prefix, compared by segment, is 409 CONFLICT and nothing is stored. */
          base_url: string;
          name: string;
          /**
           * @description Every value is a secret: never returned, only its key (option_keys). No external_id: the platform passes the tenant's aws_external_id (an external_id here is 400). A store without keys or a role is reached with the platform's own access, only in a bucket the deployment lists in tenantBuckets (elsewhere 400 on options.role_arn), or, at a custom endpoint, anonymously.
           * @default {}
           */
          options?: {
            [key: string]: string;
          };
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            /** Format: uuid */
            object_store_id: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Choose the tenant's default object store (where new data sets are written)
   * @description Permission `object-stores.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  tenantsSelectDefaultObjectStore: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** Format: uuid */
          object_store_id: string;
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Replace an object store's options (credentials, endpoint, role); options that make it reached with shared credentials may not overlap another tenant's store (409). Its endpoint, region and force_path_style may not change while a data set has its table in the store (409, naming them); its credentials may
   * @description Permission `object-stores.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  tenantsUpdateObjectStoreOptions: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** Format: uuid */
          object_store_id: string;
          /** @description Every value is a secret: never returned, only its key (option_keys). No external_id: the platform passes the tenant's aws_external_id (an external_id here is 400). A store without keys or a role is reached with the platform's own access, only in a bucket the deployment lists in tenantBuckets (elsewhere 400 on options.role_arn), or, at a custom endpoint, anonymously. */
          options: {
            [key: string]: string;
          };
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The state of the tenant's dashboard connection
   * @description Permission `tenants.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  tenantsGetDashboardConnection: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["DashboardConnection"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Provision the dashboard connection again (status becomes Pending)
   * @description Permission `dashboard.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  tenantsRetryDashboardConnection: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["DashboardConnection"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Replace the dashboard's read-only credential; the old one stops working at once (also while the tenant is suspended, as a revocation)
   * @description Permission `dashboard.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  tenantsRotateDashboardCredential: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The caller: its role, tenant, user, API key, and the permissions its role holds
   * @description Permission `self.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  usersMe: {
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["Caller"];
        };
      };
      /** @description A request body, which this operation does not take. Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List users, filtered by tenant, role and status
   * @description Permission `users.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  usersList: {
    parameters: {
      query?: {
        tenant_id?: string;
        role?: "PlatformAdmin" | "TenantAdmin" | "TenantEditor" | "TenantViewer";
        status?: "Active" | "Deactivated";
        limit?: number;
        cursor?: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            users: components["schemas"]["User"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Create a user (email unique regardless of case; password of at least 12 characters)
   * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersCreate: {
    requestBody: {
      content: {
        "application/json": {
          /** Format: email */
          email: string;
          password: string;
          /** @enum {string} */
          role: "PlatformAdmin" | "TenantAdmin" | "TenantEditor" | "TenantViewer";
          tenant_id?: string | null;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            email: string;
            /** Format: uuid */
            user_id: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Find a user by email (case-insensitive)
   * @description Permission `users.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  usersGetByEmail: {
    parameters: {
      query: {
        email: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["User"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Get a user
   * @description Permission `users.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  usersGet: {
    parameters: {
      path: {
        user_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["User"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Change a user's role (not your own)
   * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersChangeRole: {
    parameters: {
      path: {
        user_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** @enum {string} */
          role: "PlatformAdmin" | "TenantAdmin" | "TenantEditor" | "TenantViewer";
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Deactivate a user: their API keys stop working on the next request
   * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersDeactivate: {
    parameters: {
      path: {
        user_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Reactivate a deactivated user
   * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersReactivate: {
    parameters: {
      path: {
        user_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Link the user's identity-provider id
   * @description Permission `users.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersLinkExternalId: {
    parameters: {
      path: {
        user_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          external_id: string;
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List a user's API keys (prefixes, never the keys)
   * @description Permission `api-keys.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersListApiKeys: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        user_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            api_keys: components["schemas"]["ApiKey"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Issue an API key for a user; the key is shown in this response only
   * @description Permission `api-keys.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersCreateApiKey: {
    parameters: {
      path: {
        user_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            /** Format: uuid */
            api_key_id: string;
            api_key: string;
            prefix: string;
            /** Format: date-time */
            created_at: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Revoke an API key; it stops working on the next request
   * @description Permission `api-keys.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  usersRevokeApiKey: {
    parameters: {
      path: {
        user_id: string;
        api_key_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List the tenant's connections
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  connectionsList: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            connections: components["schemas"]["Connection"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Create a webhook connection; the ingest token is shown in this response only
   * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  connectionsCreate: {
    parameters: {
      path: {
        tenant_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** @constant */
          type: "Webhook";
          name: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            /** Format: uuid */
            connection_id: string;
            source_id: string;
            /** Format: uuid */
            data_set_id: string;
            ingest_token: string;
            ingest_url: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Get a connection, with the ingest URL its senders were given
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  connectionsGet: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["ConnectionDetail"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Delete a connection and its source; its data set stays
   * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  connectionsDelete: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Issue a new ingest token; the old one stops working
   * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  connectionsRegenerateToken: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            ingest_token: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Activate a connection
   * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  connectionsActivate: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Deactivate a connection: ingest answers 422 CONNECTION_NOT_ACTIVE
   * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  connectionsDeactivate: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Pause the data source: ingest answers 422 SOURCE_PAUSED
   * @description Permission `connections.operate`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  connectionsPauseSource: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Resume a paused data source
   * @description Permission `connections.operate`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  connectionsResumeSource: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * How the source authenticates and protects itself (secrets never shown)
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  connectionsGetSecurity: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["SourceSecurity"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Set bearer or signature authentication, replay and dedup windows, rate limit and IP allowlist
   * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  connectionsPutSecurity: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** @enum {string} */
          auth_mode: "bearer" | "signature" | "bearer_and_signature";
          /** @description Left out: 0 (no deduplication) */
          dedup_window_seconds?: number;
          /** @description Left out: off (null) */
          rate_limit?: {
            requests_per_second: number;
            burst: number;
          } | null;
          /** @description Left out: off (null) */
          ip_allowlist?: string[] | null;
          /** @description A header or a JSON pointer; null: the preset’s event id, else webhook-id, else Idempotency-Key */
          dedup_key?: ({
            header: string;
          } | {
            json_pointer: string;
          }) | null;
          /** @description Left out: off (null); required by the signature modes */
          signature?: ({
            /** @enum {string} */
            scheme: "standard-webhooks" | "github" | "stripe" | "hmac-sha256" | "slack" | "meta" | "zoom" | "microsoft-graph" | "twilio" | "square" | "hubspot" | "linear" | "paddle" | "sendgrid" | "shopify" | "gitlab" | "intercom" | "pagerduty" | "typeform" | "calendly" | "mailgun" | "dropbox" | "clerk" | "resend" | "svix" | "zendesk" | "jira" | "bitbucket" | "twitch" | "discord" | "woocommerce" | "postmark" | "mailchimp" | "airtable" | "notion" | "vercel" | "sentry" | "okta" | "plaid" | "x" | "box" | "netlify";
            /** @description The signing secret (write-only); at least 16 characters, fewer where the provider issues shorter ones */
            secret?: string;
            /** @description SendGrid: base64 DER; Discord: hex; Plaid: a JWK */
            public_key?: string;
            /** @description meta, write-only */
            verify_token?: string;
            header?: string;
            /** @enum {string} */
            encoding?: "hex" | "base64";
            tolerance_seconds?: number;
          }) | null;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["SourceSecurity"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * A new signing secret, shown once; the previous one stays valid for grace_seconds (default 1 day). At most 4 previous secrets are kept in their grace time: a rotation beyond is 409 (grace_seconds 0 ends them all)
   * @description Permission `connections.manage`, held by: PlatformAdmin, TenantAdmin.
   */
  connectionsRotateSigningSecret: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          secret?: string;
          grace_seconds?: number;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            signing_secret: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Ingest requests refused after the source was identified, newest first (the last 1000, 7 days)
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringRejections: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            rejections: components["schemas"]["Rejection"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Envelopes that exhausted their deliveries, with the last error, newest first
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringFailedDeliveries: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            failed_deliveries: components["schemas"]["FailedDelivery"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Send failed deliveries (all, or those of the message ids, failure time range or error category given) back to the ingest queue, at most 250 per call (`remaining` says how many wait), with the counts by category; no row is ever written twice
   * @description Permission `connections.operate`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  monitoringRedrive: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Only these failed deliveries: at most 250, the most one call redrives */
          message_ids?: string[];
          /**
           * Format: date-time
           * @description Only those that failed at or after this time
           */
          from?: string;
          /**
           * Format: date-time
           * @description Only those that failed before this time
           */
          to?: string;
          /** @description Only those whose last_error starts with this category (STORE_UNREACHABLE, ACCESS_DENIED, TABLE_PROTOCOL_UNSUPPORTED, …; OTHER for an error that names none) */
          error_category?: string;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            /** @description Put back on the ingest queue by this call (at most 250) */
            redriven: number;
            /** @description Those redriven, by error category */
            by_category: {
              [key: string]: number;
            };
            /** @description Failed deliveries of the selection still waiting: call again until it is 0 */
            remaining: number;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Accepted, duplicates, rejected by code, written, dead-lettered, redriven, unaccounted, last ingest and write, oldest unwritten
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringStats: {
    parameters: {
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["ConnectionStats"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Accepted, rejected by code, written, dead-lettered (and duplicates, redriven) per 15 minutes, hour or day, for up to 30 days back
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringStatsHistory: {
    parameters: {
      query?: {
        from?: string;
        to?: string;
        step?: "15m" | "1h" | "1d";
      };
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["TrafficHistory"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The tenant’s connections, a page at a time (at most 100), each with its figures as its connection’s stats: one request for an overview instead of one per connection
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringTenantStats: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["TenantConnectionStats"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The traffic history of all the tenant’s connections added up, as a connection’s
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringTenantStatsHistory: {
    parameters: {
      query?: {
        from?: string;
        to?: string;
        step?: "15m" | "1h" | "1d";
      };
      path: {
        tenant_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["TenantTrafficHistory"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Accepted events read back from the data set, newest first: by message id, time range, bytes the body contains or a JSON value (at most 16 files or 64 MiB of Parquet per request; the cursor goes on, and the answer says how far back it looked)
   * @description Permission `connections.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringEvents: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
        message_id?: string;
        from?: string;
        to?: string;
        contains?: string;
        json_path?: string;
        json_equals?: string;
        event_type?: string;
      };
      path: {
        connection_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            events: components["schemas"]["Event"][];
            next_cursor: string | null;
            /** @description Parquet files this request read */
            files_read: number;
            /** @description Bytes of Parquet this request read */
            bytes_read: number;
            /** @description Events of the range (before the cursor) this request considered, matching or not */
            events_scanned: number;
            /** @description Files of the range this request did not reach: the cursor goes on to them */
            files_left: number;
            /** @description With a cursor: every event of the range received at or after this time was considered, older ones were not yet; null when nothing is left */
            scanned_back_to: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The commits of a data set, newest first: version, files, rows, bytes, duration, attempt
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  monitoringRuns: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        data_set_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            runs: components["schemas"]["Run"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Answer a provider’s GET handshake (Meta’s hub.challenge, Dropbox’s challenge, X’s crc_token, Okta’s verification); any other GET is 404
   * @description Authenticated by the source’s bearer token, or, for a source that verifies signatures only, by the sender’s signature headers.
   */
  ingestHandshake: {
    parameters: {
      query?: {
        feed?: string;
      };
      path: {
        source_id: string;
      };
    };
    responses: {
      /** @description A provider’s GET handshake, answered */
      200: {
        content: {
          "text/plain": string;
          "application/json": components["schemas"]["HandshakeChallenge"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or wrong bearer token, or a signature that does not verify. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The sender’s address is outside the source’s allowlist. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No such source. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The source is paused or not active. Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The source’s rate limit is exceeded; retry after `Retry-After` seconds. Codes: `RATE_LIMITED` */
      429: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Accept a webhook: any body and content type; 202 once it is queued for writing, or 200/204 for a provider’s handshake (Slack, Zoom, Microsoft Graph, Twitch, Discord), stored as no event
   * @description Authenticated by the source’s bearer token, or, for a source that verifies signatures only, by the sender’s signature headers.
   */
  ingestAccept: {
    parameters: {
      query?: {
        feed?: string;
      };
      path: {
        source_id: string;
      };
    };
    /** @description Any body with any content type, up to the ingest size limit (1 MiB by default). It is kept byte for byte, base64-encoded in the envelope, with the headers and query string. */
    requestBody?: {
      content: {
        "*/*": string;
      };
    };
    responses: {
      /** @description A provider’s handshake, answered and stored as no event */
      200: {
        content: {
          "application/json": components["schemas"]["HandshakeAnswer"];
          "text/plain": string;
        };
      };
      /** @description Accepted */
      202: {
        content: {
          "application/json": components["schemas"]["IngestAccepted"];
        };
      };
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Missing or wrong bearer token, or a signature that does not verify. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The sender’s address is outside the source’s allowlist. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No such source. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The source is paused or not active. Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The source’s rate limit is exceeded; retry after `Retry-After` seconds. Codes: `RATE_LIMITED` */
      429: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List data sets, filtered by tenant and pipeline
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  dataSetsList: {
    parameters: {
      query?: {
        tenant_id?: string;
        pipeline_id?: string;
        limit?: number;
        cursor?: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            data_sets: components["schemas"]["DataSet"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Get a data set
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  dataSetsGet: {
    parameters: {
      path: {
        data_set_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["DataSet"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Delete a data set and its files (409 while a connection or pipeline writes to it, its envelopes wait staged or a run of its pipeline is under way): 204 when done; 202 with the job deleting a table of over 1,000 files or 200 versions, or one a maintenance run holds
   * @description Permission `data-sets.delete`, held by: PlatformAdmin, TenantAdmin.
   */
  dataSetsDelete: {
    parameters: {
      path: {
        data_set_id: string;
      };
    };
    responses: {
      /** @description Accepted */
      202: {
        content: {
          "application/json": {
            /** Format: uuid */
            job_id: string;
          };
        };
      };
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The files of the data set's latest Delta snapshot, newest first, a page at a time, with download URLs valid 15 minutes
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  dataSetsFiles: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        data_set_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["DataSetFiles"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Start a maintenance run of the data set's table (a job of type Optimize): compacts day partitions with small files, vacuums files removed over 7 days ago
   * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  dataSetsOptimize: {
    parameters: {
      path: {
        data_set_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": Record<string, never>;
      };
    };
    responses: {
      /** @description Accepted */
      202: {
        content: {
          "application/json": {
            /** Format: uuid */
            job_id: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The table's properties as its latest version sets them, and those in force (each set one, else its default); any role that reads the data set. A table with no commit yet answers 200 with `version: null`, no properties and the defaults (the deployment's freshness target), as its first commit would start from them
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  dataSetsGetTableProperties: {
    parameters: {
      path: {
        data_set_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["CurrentTableProperties"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Set the table's maintenance properties (checkpoint interval, retentions, compaction target): a new Delta version; a tenant admin's, as retentions decide when files are deleted (409 while a maintenance run or a deletion holds the table)
   * @description Permission `data-sets.delete`, held by: PlatformAdmin, TenantAdmin.
   */
  dataSetsPutTableProperties: {
    parameters: {
      path: {
        data_set_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          properties: {
            [key: string]: string;
          };
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["TableProperties"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Propose a pipeline's columns (paths, types, names) from the data set's recent payloads: up to `sample` envelopes of its 16 newest files, decoded as `format` would
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  dataSetsSuggestColumns: {
    parameters: {
      path: {
        data_set_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /**
           * @default auto
           * @enum {string}
           */
          format?: "json" | "xml" | "form" | "ndjson" | "auto";
          /** @default 100 */
          sample?: number;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["ColumnSuggestion"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List pipelines
   * @description Permission `pipelines.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  pipelinesList: {
    parameters: {
      query?: {
        tenant_id?: string;
        limit?: number;
        cursor?: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            pipelines: components["schemas"]["Pipeline"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Create a pipeline (working version 1, not deployed)
   * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesCreate: {
    requestBody: {
      content: {
        "application/json": {
          /** Format: uuid */
          tenant_id?: string;
          name: string;
          definition?: ({
            source: {
              /** Format: uuid */
              data_set_id: string;
            };
            decode: {
              /** @enum {string} */
              format: "json" | "xml" | "form" | "ndjson" | "auto";
            };
            /** @description Keeps the rows whose value at `path` equals `equals` (at most 4,096 bytes of JSON) */
            where?: {
              path: string;
              equals: components["schemas"]["JsonValue"];
            };
            columns: ({
                name: string;
                path: string;
                /** @enum {string} */
                type: "string" | "long" | "double" | "boolean" | "timestamp";
              })[];
            output: {
              name: string;
            };
            on_new_data?: boolean;
          }) | null;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            /** Format: uuid */
            pipeline_id: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Get a pipeline
   * @description Permission `pipelines.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  pipelinesGet: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["Pipeline"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Delete a pipeline; its output data set stays
   * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesDelete: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Replace the working definition (validated); the working version moves up by one
   * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesUpdateDefinition: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          definition: {
            source: {
              /** Format: uuid */
              data_set_id: string;
            };
            decode: {
              /** @enum {string} */
              format: "json" | "xml" | "form" | "ndjson" | "auto";
            };
            /** @description Keeps the rows whose value at `path` equals `equals` (at most 4,096 bytes of JSON) */
            where?: {
              path: string;
              equals: components["schemas"]["JsonValue"];
            };
            columns: ({
                name: string;
                path: string;
                /** @enum {string} */
                type: "string" | "long" | "double" | "boolean" | "timestamp";
              })[];
            output: {
              name: string;
            };
            on_new_data?: boolean;
          };
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Freeze the working definition as the deployed version (409 if `version` is not the working version)
   * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesDeploy: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          version?: number;
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Enable a pipeline
   * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesEnable: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Disable a pipeline: triggers get 422 PIPELINE_DISABLED
   * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesDisable: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Rename a pipeline
   * @description Permission `pipelines.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesRename: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
        };
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Start a run of the deployed version; with from/to, a re-run replacing those days of the output in one commit (422 when disabled or never deployed)
   * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  pipelinesTrigger: {
    parameters: {
      path: {
        pipeline_id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Kept with the job as given: at most 16,384 bytes of JSON */
          parameters?: {
            [key: string]: unknown;
          };
          /** @description Re-run from this day: the output’s rows of from…to are replaced in one commit */
          from?: string;
          /** @description The last day re-run (inclusive) */
          to?: string;
        };
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            /** Format: uuid */
            job_id: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List jobs, newest first, filtered by tenant, type and status
   * @description Permission `jobs.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  jobsList: {
    parameters: {
      query?: {
        tenant_id?: string;
        job_type?: "Pipeline" | "Query" | "Optimize" | "Delete";
        status?: "Queued" | "Dispatched" | "Running" | "Succeeded" | "Failed" | "Cancelled";
        limit?: number;
        cursor?: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            jobs: components["schemas"]["Job"][];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Start a pipeline run (with from/to: a re-run replacing those days of its output) or a query
   * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  jobsCreate: {
    requestBody: {
      content: {
        "application/json": OneOf<[{
          /** @constant */
          type: "pipeline";
          /** Format: uuid */
          pipeline_id: string;
          /** Format: uuid */
          tenant_id?: string;
          /** @description Kept with the job as given: at most 16,384 bytes of JSON */
          parameters?: {
            [key: string]: unknown;
          };
          /** @description Re-run from this day: the output’s rows of from…to are replaced in one commit */
          from?: string;
          /** @description The last day re-run (inclusive) */
          to?: string;
        }, {
          /** @constant */
          type: "query";
          /** Format: uuid */
          tenant_id?: string;
          query: {
            source: {
              /** Format: uuid */
              data_set_id: string;
            };
            decode: {
              /** @enum {string} */
              format: "json" | "xml" | "form" | "ndjson" | "auto";
            };
            /** @description Keeps the rows whose value at `path` equals `equals` (at most 4,096 bytes of JSON) */
            where?: {
              path: string;
              equals: components["schemas"]["JsonValue"];
            };
            columns: ({
                name: string;
                path: string;
                /** @enum {string} */
                type: "string" | "long" | "double" | "boolean" | "timestamp";
              })[];
          };
          limit?: number;
          /** @description The first day (dt, UTC) the query reads; from the oldest when absent */
          from?: string;
          /** @description The last day (dt, UTC) the query reads, inclusive; to the newest when absent */
          to?: string;
        }]>;
      };
    };
    responses: {
      /** @description Created */
      201: {
        content: {
          "application/json": {
            /** Format: uuid */
            job_id: string;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Get a job
   * @description Permission `jobs.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  jobsGet: {
    parameters: {
      path: {
        job_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["Job"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Cancel a job: at once when Queued or Dispatched; before its commit when Running
   * @description Permission `jobs.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  jobsCancel: {
    parameters: {
      path: {
        job_id: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * A query job's rows, once it has succeeded, a page at a time (at most `limit` rows and about 4 MiB)
   * @description Permission `jobs.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  jobsResult: {
    parameters: {
      query?: {
        limit?: number;
        cursor?: string;
      };
      path: {
        job_id: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["QueryResult"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * List document paths, sorted, in the global scope or a tenant’s, optionally under a prefix
   * @description Permission `wiki.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  wikiList: {
    parameters: {
      query?: {
        tenant_id?: string;
        prefix?: string;
        limit?: number;
        cursor?: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            paths: string[];
            next_cursor: string | null;
          };
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Get a document by path (which may contain /)
   * @description Permission `wiki.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  wikiGet: {
    parameters: {
      query?: {
        tenant_id?: string;
      };
      path: {
        /** @description May contain `/`: everything after the prefix, as one value. */
        path: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["WikiDocument"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Create (201) or replace (200) a document; content up to 256 KiB
   * @description Permission `wiki.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  wikiPut: {
    parameters: {
      query?: {
        tenant_id?: string;
      };
      path: {
        /** @description May contain `/`: everything after the prefix, as one value. */
        path: string;
      };
    };
    requestBody: {
      content: {
        "application/json": {
          content: string;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": components["schemas"]["WikiDocument"];
        };
      };
      /** @description Created */
      201: {
        content: {
          "application/json": components["schemas"]["WikiDocument"];
        };
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is over the size limit. Codes: `PAYLOAD_TOO_LARGE` */
      413: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The body is not `application/json`. Codes: `UNSUPPORTED_MEDIA_TYPE` */
      415: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * Delete a document
   * @description Permission `wiki.write`, held by: PlatformAdmin, TenantAdmin, TenantEditor.
   */
  wikiDelete: {
    parameters: {
      query?: {
        tenant_id?: string;
      };
      path: {
        /** @description May contain `/`: everything after the prefix, as one value. */
        path: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description The path, query string or body does not match the schema (`details` says where). Codes: `VALIDATION_ERROR`, `INVALID_FEED`, `INVALID_JSON` */
      400: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description No API key, or one that is unknown, revoked or expired. Codes: `UNAUTHORIZED` */
      401: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The key’s role does not hold the route’s permission. Codes: `FORBIDDEN` */
      403: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description A resource named in the path, query or body does not exist or is not visible to the caller’s tenant. Codes: `NOT_FOUND` */
      404: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The resource’s current state or a unique name does not allow the change. Codes: `CONFLICT` */
      409: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The tenant, connection, pipeline or job is not in a state that allows this, or the tenant’s object store failed (`details` gives its category and S3 error code). Codes: `SOURCE_PAUSED`, `CONNECTION_NOT_ACTIVE`, `OBJECT_STORE_NOT_CONFIGURED`, `OBJECT_STORE_FAILED`, `TENANT_SUSPENDED`, `PIPELINE_DISABLED`, `PIPELINE_NOT_DEPLOYED`, `JOB_NOT_CANCELLABLE`, `TABLE_PROTOCOL_UNSUPPORTED`, `TABLE_SCHEMA_INCOMPATIBLE` */
      422: {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description The service failed (500 `INTERNAL`; the request id identifies the failure in the logs), or one of its own dependencies stayed slow or busy past its retries (503 `SERVICE_UNAVAILABLE`, `Retry-After` set: retry) */
      "5XX": {
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  /**
   * The catalog’s configuration: no defaults or overrides, and the endpoints it serves
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergConfig: {
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            defaults: {
              [key: string]: string;
            };
            overrides: {
              [key: string]: string;
            };
            endpoints: string[];
          };
        };
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /** OAuth2 client credentials: the client secret is a Tributary API key, and the access token is that key (it stops working the moment the key is revoked) */
  icebergTokens: {
    requestBody: {
      content: {
        "application/x-www-form-urlencoded": {
          grant_type: string;
          client_id?: string;
          client_secret?: string;
          subject_token?: string;
          subject_token_type?: string;
          scope?: string;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            access_token: string;
            /** @constant */
            token_type: "bearer";
            expires_in: number;
            issued_token_type: string;
            scope?: string;
          };
        };
      };
      /** @description `invalid_request` (no client secret, a body that is not a form) or `unsupported_grant_type` */
      400: {
        content: {
          "application/json": components["schemas"]["OAuthError"];
        };
      };
      /** @description `invalid_client`: the client secret is not a working Tributary API key */
      401: {
        content: {
          "application/json": components["schemas"]["OAuthError"];
        };
      };
      /** @description The service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["OAuthError"];
        };
      };
    };
  };
  /**
   * The namespaces the key sees: its tenant’s (a PlatformAdmin’s: every tenant’s), each named by its slug
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergListNamespaces: {
    parameters: {
      query?: {
        parent?: string;
        pageToken?: string;
        pageSize?: number;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            namespaces: string[][];
            "next-page-token": string | null;
          };
        };
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Whether the key may list namespaces: 204 (the catalog answers, and the key reads data sets)
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergNamespacesExist: {
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * A namespace (a tenant, by its slug)
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergGetNamespace: {
    parameters: {
      path: {
        namespace: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            namespace: string[];
            properties: {
              [key: string]: string;
            };
          };
        };
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Whether the namespace exists for the key: 204, else 404
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergNamespaceExists: {
    parameters: {
      path: {
        namespace: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * The namespace’s tables: its data sets that have a first commit and that Iceberg can express, each named by its data_set_id
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergListTables: {
    parameters: {
      query?: {
        pageToken?: string;
        pageSize?: number;
      };
      path: {
        namespace: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            identifiers: {
                namespace: string[];
                name: string;
              }[];
            "next-page-token": string | null;
          };
        };
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Load a table: its latest metadata (the data set’s latest Delta version) and, with `X-Iceberg-Access-Delegation: vended-credentials`, read access to its files
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergLoadTable: {
    parameters: {
      query?: {
        snapshots?: "all" | "refs";
      };
      path: {
        namespace: string;
        table: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            "metadata-location": string;
            /** @description The table metadata (Iceberg format version 2) */
            metadata: {
              [key: string]: unknown;
            };
            /** @description With `X-Iceberg-Access-Delegation: vended-credentials`: `client.region`, `s3.endpoint`, `s3.path-style-access` where known, and short-lived read-only `s3.access-key-id`, `s3.secret-access-key`, `s3.session-token` where the store is reached through the tenant’s role (else `tributary.vended-credentials` says why none) */
            config: {
              [key: string]: string;
            };
            "storage-credentials"?: {
                prefix: string;
                config: {
                  [key: string]: string;
                };
              }[];
          };
        };
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Whether the table exists for the key (a committed data set Iceberg can express): 204, else 404
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergTableExists: {
    parameters: {
      path: {
        namespace: string;
        table: string;
      };
    };
    responses: {
      /** @description No content */
      204: {
        content: never;
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Fresh vended credentials for a loaded table (the spec’s loadCredentials), which a client asks for before those it has expire: loading a table that vends them names this endpoint in `client.refresh-credentials-endpoint`
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergLoadCredentials: {
    parameters: {
      path: {
        namespace: string;
        table: string;
      };
    };
    responses: {
      /** @description OK */
      200: {
        content: {
          "application/json": {
            /** @description Fresh short-lived read-only credentials for the table’s files, as loading the table vends them (empty where its store vends none) */
            "storage-credentials": {
                prefix: string;
                config: {
                  [key: string]: string;
                };
              }[];
          };
        };
      };
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Everything else under /iceberg: a write (create, update, drop, rename, register, commit) is 403 `ForbiddenException`, the catalog being read-only; a read of anything else is 404
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergRefusePut: {
    parameters: {
      path: {
        /** @description May contain `/`: everything after the prefix, as one value. */
        path: string;
      };
    };
    responses: {
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description Always an error: this route serves none */
      default: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Everything else under /iceberg: a write (create, update, drop, rename, register, commit) is 403 `ForbiddenException`, the catalog being read-only; a read of anything else is 404
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergRefusePost: {
    parameters: {
      path: {
        /** @description May contain `/`: everything after the prefix, as one value. */
        path: string;
      };
    };
    responses: {
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description Always an error: this route serves none */
      default: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
  /**
   * Everything else under /iceberg: a write (create, update, drop, rename, register, commit) is 403 `ForbiddenException`, the catalog being read-only; a read of anything else is 404
   * @description Permission `data-sets.read`, held by: PlatformAdmin, TenantAdmin, TenantEditor, TenantViewer.
   */
  icebergRefuseDelete: {
    parameters: {
      path: {
        /** @description May contain `/`: everything after the prefix, as one value. */
        path: string;
      };
    };
    responses: {
      /** @description `BadRequestException`: the path or query string does not match the schema */
      400: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NotAuthorizedException`: no API key as `Authorization: Bearer`, or one that does not work */
      401: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ForbiddenException`: a write (the catalog is read-only) */
      403: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `NoSuchNamespaceException`, `NoSuchTableException`: not there, or not visible to the key’s tenant; `NotFoundException`: no such route */
      404: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description The tenant’s object store failed (its category and S3 error code in the message) */
      422: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description `ServiceFailureException`: the service failed */
      "5XX": {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
      /** @description Always an error: this route serves none */
      default: {
        content: {
          "application/json": components["schemas"]["IcebergError"];
        };
      };
    };
  };
}
