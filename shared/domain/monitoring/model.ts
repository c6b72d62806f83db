/**
 * What Tributary keeps so that nothing it accepted or refused disappears without a trace.
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

/**
 * Header names that say they carry a credential, a signature or a MAC, whoever sent them: `mac` and
 * `sig` only as a whole part of the name (x-mac, x-sig-v1), not inside a word (x-machine).
 */
const secretName =
  /auth|signature|signed|token|secret|cookie|api-?key|password|credential|hmac|verification|(^|[-_.])(mac|sig|jwt)([-_.]|$)/i;

/**
 * Whether a header (its lowercase name) may carry a credential, and so is never kept: its name says
 * it is secret, or it is one of `secretHeaders` (lowercase: the headers the source's signature
 * settings read, and every preset's). The one rule for what a rejection and an envelope leave out.
 */
export function isCredentialHeader(lowerName: string, secretHeaders: ReadonlySet<string>): boolean {
  return secretName.test(lowerName) || secretHeaders.has(lowerName);
}

/**
 * The headers a rejection keeps, and shows: none that may carry a credential (isCredentialHeader).
 * Applied when a refusal is kept and again when rejections are read, so that one kept under an
 * older rule is shown under this one. At most 50 headers, names cut at 100 characters and values at
 * 256: a rejection stays a few KB, whatever a sender sends.
 */
export function safeHeaders(
  headers: Record<string, string | undefined>,
  secretHeaders: ReadonlySet<string>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, 50)) {
    const lower = name.toLowerCase();
    if (value === undefined || isCredentialHeader(lower, secretHeaders)) continue;
    kept[lower.slice(0, 100)] = value.slice(0, 256);
  }
  return kept;
}

/**
 * One redrive call puts at most this many failed deliveries back on the queue (a few seconds of work,
 * well inside API Gateway's 30 s), and says how many are left for the next call.
 */
export const redriveBatchLimit = 250;
