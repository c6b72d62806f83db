/**
 * Data sources: what ingest reads on every webhook (token hash, statuses, security settings), one
 * item each, written with its connection (connections.ts). A module of its own so that the ingest
 * function carries the source's key and reader and nothing of the connections' writes.
 *   pk SOURCE#<source_id>   sk SOURCE
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { connectionStatuses, type Source, sourceStatuses } from '../../domain/connections/model.ts';
import type { DedupKey } from '../../domain/connections/presets.ts';
import { authModes, signatureSchemes } from '../../domain/connections/security-names.ts';
import {
  defaultSecurity,
  type SealedSecret,
  type SignatureSettings,
  type SourceSecurity,
} from '../../domain/connections/source-security.ts';
import { notFound } from '../../domain/errors.ts';
import { sourceCache } from './ingest-cache.ts';
import { itemReader, objectOf, orNull } from './stored-items.ts';
import { db, setFieldsCommand, table, writeOrRefuse } from './table.ts';

export const sourceKey = (sourceId: string) => ({ pk: `SOURCE#${sourceId}`, sk: 'SOURCE' });

const storedSignature = () =>
  objectOf<SignatureSettings>({
    scheme: z.enum(signatureSchemes),
    header: z.string().nullable(),
    encoding: z.enum(['hex', 'base64']).nullable(),
    tolerance_seconds: z.number().nullable(),
    secrets: z.array(
      objectOf<SealedSecret>({ sealed: z.string(), created_at: z.string(), expires_at: z.string().nullable() }),
    ),
    public_key: orNull(z.string()),
    verify_token_hash: orNull(z.string()),
  });

const storedSecurity = () =>
  objectOf<SourceSecurity>({
    auth_mode: z.enum(authModes),
    signature: storedSignature().nullable(),
    dedup_window_seconds: z.number(),
    dedup_key: orNull(
      z.union([
        objectOf<Extract<DedupKey, { header: string }>>({ header: z.string() }),
        objectOf<Extract<DedupKey, { json_pointer: string }>>({ json_pointer: z.string() }),
      ]),
    ),
    rate_limit: z.object({ requests_per_second: z.number(), burst: z.number() }).nullable(),
    ip_allowlist: z.array(z.string()).nullable(),
  });

/** What ingest reads about a source; a source made before its security settings existed takes the defaults. */
export const toSource = /* @__PURE__ */ itemReader<Source>('Source', () => ({
  source_id: z.string(),
  connection_id: z.string(),
  tenant_id: z.string(),
  data_set_id: z.string(),
  token_hash: z.string(),
  source_status: z.enum(sourceStatuses),
  connection_status: z.enum(connectionStatuses),
  security: storedSecurity()
    .optional()
    .transform((security) => security ?? defaultSecurity),
  ingest_url: orNull(z.string()),
}));

/** `consistent: false` for a reader that tolerates a moment's staleness (the ingest cache) at half the price. */
export async function getSource(sourceId: string, consistent = true): Promise<Source | null> {
  const result = await db.send(
    new GetCommand({ TableName: table(), Key: sourceKey(sourceId), ConsistentRead: consistent }),
  );
  return result.Item ? toSource(result.Item) : null;
}

export async function setSourceSecurity(sourceId: string, security: SourceSecurity, now: Date): Promise<void> {
  try {
    await writeOrRefuse(
      db.send(new UpdateCommand(setFieldsCommand(sourceKey(sourceId), { security, updated_at: now.toISOString() }))),
      () => notFound('Connection'),
    );
  } finally {
    sourceCache.forget(sourceId);
  }
}
