/**
 * The Iceberg REST catalog's requests and answers (Apache Iceberg, open-api/rest-catalog-open-api.yaml),
 * as far as Tributary's read-only catalog serves them. Field names are the spec's (kebab-case). Query
 * strings are not strict: clients add parameters of later spec versions, which a catalog ignores.
 */
import * as z from 'zod';

const stringMap = z.record(z.string(), z.string());

export const icebergError = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string().meta({ description: 'The exception a client raises: `NoSuchTableException` …' }),
      code: z.number().int(),
    }),
  })
  .meta({ id: 'IcebergError' });

export const oauthError = z
  .object({
    error: z.enum(['invalid_request', 'invalid_client', 'unsupported_grant_type', 'server_error']),
    error_description: z.string(),
  })
  .meta({ id: 'OAuthError' });

export const catalogConfig = z.object({
  defaults: stringMap,
  overrides: stringMap,
  endpoints: z.array(z.string()),
});

const secret = z.string().max(1000).optional();

export const tokenForm = z.object({
  grant_type: z.string().max(200),
  client_id: secret,
  client_secret: secret,
  subject_token: secret,
  subject_token_type: secret,
  scope: secret,
});

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int(),
  issued_token_type: z.string(),
  scope: z.string().optional(),
});

/** A namespace of one level (a tenant's slug); a multi-level one (parts joined by 0x1F) names none. */
const namespace = z.string().min(1).max(256);
const table = z.string().min(1).max(256);

export const namespaceParams = z.strictObject({ namespace });
export const tableParams = z.strictObject({ namespace, table });
export const catalogPathParams = z.strictObject({ path: z.string().max(2048) });

const pageQuery = {
  pageToken: z.string().max(4096).optional(),
  pageSize: z.coerce.number().int().min(1).optional(),
};

export const listNamespacesQuery = z.object({ parent: namespace.optional(), ...pageQuery });
export const listTablesQuery = z.object(pageQuery);
export const loadTableQuery = z.object({ snapshots: z.enum(['all', 'refs']).optional() });

const nextPageToken = z.string().nullable();

export const listNamespacesResponse = z.object({
  namespaces: z.array(z.array(z.string())),
  'next-page-token': nextPageToken,
});

export const namespaceResponse = z.object({ namespace: z.array(z.string()), properties: stringMap });

export const listTablesResponse = z.object({
  identifiers: z.array(z.object({ namespace: z.array(z.string()), name: z.string() })),
  'next-page-token': nextPageToken,
});

export const loadTableResult = z.object({
  'metadata-location': z.string(),
  metadata: z.record(z.string(), z.unknown()).meta({ description: 'The table metadata (Iceberg format version 2)' }),
  config: stringMap.meta({
    description:
      'With `X-Iceberg-Access-Delegation: vended-credentials`: `client.region`, `s3.endpoint`, `s3.path-style-access` where known, and short-lived read-only `s3.access-key-id`, `s3.secret-access-key`, `s3.session-token` where the store is reached through the tenant’s role (else `tributary.vended-credentials` says why none)',
  }),
  'storage-credentials': z.array(z.object({ prefix: z.string(), config: stringMap })).optional(),
});

export const loadCredentialsResult = z.object({
  'storage-credentials': z.array(z.object({ prefix: z.string(), config: stringMap })).meta({
    description:
      'Fresh short-lived read-only credentials for the table’s files, as loading the table vends them (empty where its store vends none)',
  }),
});
