import * as z from 'zod';
import { connectionStatuses, sourceStatuses } from '../../domain/connections/model.ts';
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

export const ingestParams = z.strictObject({ source_id: z.string().max(128) });
export const ingestQuery = z.strictObject({ feed: z.string().optional() });
export const ingestAccepted = z.object({ message_id: id }).meta({ id: 'IngestAccepted' });
