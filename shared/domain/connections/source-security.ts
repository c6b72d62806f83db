/**
 * What a source's security settings are, as the source item keeps them (the rules that set them are
 * in security.ts): a leaf that the source model and the ingest path read without the rules.
 */
import type { DedupKey } from './presets.ts';
import type { AuthMode, SignatureScheme } from './security-names.ts';

export interface SealedSecret {
  sealed: string;
  created_at: string;
  /** Set on a previous secret when a new one replaces it: valid until then, so senders can switch. */
  expires_at: string | null;
}

export interface SignatureSettings {
  scheme: SignatureScheme;
  /** hmac-sha256 only: where the signature is and how it is encoded. */
  header: string | null;
  encoding: 'hex' | 'base64' | null;
  /** Timestamped schemes: how far a timestamp may be from now (null: the scheme's default, or unchecked). */
  tolerance_seconds: number | null;
  secrets: SealedSecret[];
  /** Public-key schemes (sendgrid, discord, plaid): the provider's verification key, as it shows it. */
  public_key?: string | null;
  /** meta: the SHA-256 of the verify token its subscription handshake must carry. */
  verify_token_hash?: string | null;
}

export interface SourceSecurity {
  auth_mode: AuthMode;
  signature: SignatureSettings | null;
  dedup_window_seconds: number;
  /** Where a request's deduplication key is; null: the preset's own event id, else webhook-id, else Idempotency-Key. */
  dedup_key?: DedupKey | null;
  rate_limit: { requests_per_second: number; burst: number } | null;
  ip_allowlist: string[] | null;
}

/** A new source takes bearer tokens only, with no window, limit or allowlist. */
export const defaultSecurity: SourceSecurity = {
  auth_mode: 'bearer',
  signature: null,
  dedup_window_seconds: 0,
  dedup_key: null,
  rate_limit: null,
  ip_allowlist: null,
};
