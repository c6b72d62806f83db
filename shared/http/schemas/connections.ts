import * as z from 'zod';
import { connectionStatuses, sourceStatuses } from '../../domain/connections/model.ts';
import { authModes, signatureSchemes } from '../../domain/connections/security-names.ts';
import { leastRequestsPerSecond } from '../../domain/ingest/rate-limit.ts';
import { id, name, nextCursor, pageQuery, timestamp } from './common.ts';

export const connectionIdParams = z.strictObject({ connection_id: id });

export const connection = z
  .object({
    connection_id: id,
    tenant_id: id,
    type: z.literal('Webhook'),
    name: z.string(),
    status: z.enum(connectionStatuses),
    source_id: z.string(),
    source_status: z.enum(sourceStatuses),
    data_set_id: id,
    token_prefix: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Connection' });

export const connectionDetail = connection
  .extend({
    ingest_url: z.string().nullable().meta({
      description:
        'The URL its senders were given at creation, which URL-signing providers (Twilio, Square, HubSpot) sign; null for a connection made before it was kept',
    }),
  })
  .meta({ id: 'ConnectionDetail' });

export const createConnectionBody = z.strictObject({ type: z.literal('Webhook'), name: name(200) });
export const createConnectionResponse = z.object({
  connection_id: id,
  source_id: z.string(),
  data_set_id: id,
  ingest_token: z.string(),
  ingest_url: z.string(),
});
export const listConnectionsQuery = z.strictObject({ ...pageQuery });
export const listConnectionsResponse = z.object({ connections: z.array(connection), next_cursor: nextCursor });
export const regenerateTokenResponse = z.object({ ingest_token: z.string() });

const securitySettings = {
  auth_mode: z.enum(authModes),
  dedup_window_seconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86400),
  rate_limit: z
    .strictObject({
      requests_per_second: z.number().min(leastRequestsPerSecond).max(10_000),
      burst: z.number().int().min(1).max(100_000),
    })
    .nullable(),
  ip_allowlist: z.array(z.string().min(2).max(64)).min(1).max(100).nullable(),
  dedup_key: z
    .union([
      z.strictObject({ header: z.string().regex(/^[A-Za-z0-9-]{1,64}$/) }),
      z.strictObject({ json_pointer: z.string().max(256) }),
    ])
    .nullable()
    .optional()
    .describe('A header or a JSON pointer; null: the preset’s event id, else webhook-id, else Idempotency-Key'),
};

/** A PUT sets the whole: a setting left out is off, as if given as null (the dedup window as 0). */
const leftOutIsOff = 'Left out: off (null)';

export const putSecurityBody = z.strictObject({
  ...securitySettings,
  dedup_window_seconds: securitySettings.dedup_window_seconds.optional().describe('Left out: 0 (no deduplication)'),
  rate_limit: securitySettings.rate_limit.optional().describe(leftOutIsOff),
  ip_allowlist: securitySettings.ip_allowlist.optional().describe(leftOutIsOff),
  signature: z
    .strictObject({
      scheme: z.enum(signatureSchemes),
      secret: z
        .string()
        .min(1)
        .max(512)
        .optional()
        .describe(
          'The signing secret (write-only); at least 16 characters, fewer where the provider issues shorter ones',
        ),
      public_key: z.string().min(1).max(4096).optional().describe('SendGrid: base64 DER; Discord: hex; Plaid: a JWK'),
      verify_token: z.string().min(1).max(512).optional().describe('meta, write-only'),
      header: z
        .string()
        .regex(/^[A-Za-z0-9-]{1,64}$/)
        .optional(),
      encoding: z.enum(['hex', 'base64']).optional(),
      tolerance_seconds: z.number().int().min(1).max(86_400).optional(),
    })
    .nullable()
    .optional()
    .describe(`${leftOutIsOff}; required by the signature modes`),
});

export const securityView = z
  .object({
    ...securitySettings,
    dedup_key: z.union([z.object({ header: z.string() }), z.object({ json_pointer: z.string() })]).nullable(),
    ip_allowlist: z.array(z.string()).nullable(),
    signature: z
      .object({
        scheme: z.enum(signatureSchemes),
        header: z.string().nullable(),
        encoding: z.enum(['hex', 'base64']).nullable(),
        tolerance_seconds: z.number().int().nullable(),
        public_key: z.string().nullable(),
        verify_token_set: z.boolean(),
        secrets: z.array(z.object({ created_at: z.string(), expires_at: z.string().nullable() })),
      })
      .nullable(),
    signing_secret: z.string().optional(),
  })
  .meta({ id: 'SourceSecurity' });

export const rotateSigningSecretBody = z.strictObject({
  /** At least the scheme's least length (16 characters unless the provider issues shorter ones). */
  secret: z.string().min(1).max(512).optional(),
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86400)
    .optional(),
});
export const rotateSigningSecretResponse = z.object({ signing_secret: z.string() });
