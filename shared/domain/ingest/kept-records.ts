/**
 * What ingest keeps so that nothing it accepted or refused disappears without a trace: each refusal,
 * each envelope whose write keeps failing, and why. The monitoring views read them.
 */

/** An ingest request refused after its source was identified (wrong token, bad feed, state, size). */
export interface Rejection {
  at: string;
  status: number;
  code: string;
  content_type: string | null;
  payload_size: number;
  /** Request headers without credentials, signatures or MACs (safeHeaders). */
  headers: Record<string, string>;
}

/** An envelope that exhausted its deliveries: kept whole until it is redriven. */
export interface FailedDelivery {
  message_id: string;
  data_set_id: string;
  connection_id: string | null;
  source_id: string;
  failed_at: string;
  attempts: number;
  last_error: string;
  /** Where the whole envelope is kept (platform bucket key). */
  body_key: string;
  /** The envelope's day (its dt), which the data retention reads; absent on records kept before it was. */
  dt?: string;
}

/** Why a write of one envelope failed most recently: the batch writer's account, read by the dead-letter recorder. */
export interface DeliveryFailure {
  message_id: string;
  data_set_id: string;
  error: string;
  store: string | null;
  attempt: number;
  at: string;
}
