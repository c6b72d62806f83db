import { defaultSecurity, type SourceSecurity } from './source-security.ts';

/**
 * A webhook connection and the data source behind it. Senders address the source (its id is in
 * the ingest URL); the connection is what tenants manage. Each connection owns exactly one data set.
 */
export const connectionStatuses = ['Active', 'Inactive'] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];
export const sourceStatuses = ['Active', 'Paused'] as const;
export type SourceStatus = (typeof sourceStatuses)[number];

export interface Connection {
  connection_id: string;
  tenant_id: string;
  type: 'Webhook';
  name: string;
  status: ConnectionStatus;
  source_id: string;
  source_status: SourceStatus;
  data_set_id: string;
  token_prefix: string;
  created_at: string;
  updated_at: string;
}

/** What the ingest path needs about a source, in one item. */
export interface Source {
  source_id: string;
  connection_id: string;
  tenant_id: string;
  data_set_id: string;
  token_hash: string;
  source_status: SourceStatus;
  connection_status: ConnectionStatus;
  security: SourceSecurity;
  /** The URL senders were given; URL-signing schemes (Twilio, Square, HubSpot) sign it. Absent on sources made before it was kept. */
  ingest_url?: string | null;
}

export { defaultSecurity };

export function sourceOf(connection: Connection, tokenHash: string, ingestUrl: string | null): Source {
  return {
    source_id: connection.source_id,
    connection_id: connection.connection_id,
    tenant_id: connection.tenant_id,
    data_set_id: connection.data_set_id,
    token_hash: tokenHash,
    source_status: connection.source_status,
    connection_status: connection.status,
    security: defaultSecurity,
    ingest_url: ingestUrl,
  };
}
