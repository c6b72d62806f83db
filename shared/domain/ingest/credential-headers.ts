/**
 * Which request headers may carry a credential: the one rule by which rejections and envelopes leave
 * them out.
 */

/**
 * Header names that say they carry a credential, a signature or a MAC, whoever sent them: `mac` and
 * `sig` only as a whole part of the name (x-mac, x-sig-v1), not inside a word (x-machine).
 */
const secretName =
  /auth|signature|signed|token|secret|cookie|api-?key|password|credential|hmac|verification|(^|[-_.])(mac|sig|jwt)([-_.]|$)/i;

/**
 * The header by which CloudFront proves a request came through the edge (shared/http/edge-origin.ts):
 * its value is the deployment's origin secret, so no envelope or rejection ever keeps it.
 */
export const edgeOriginHeader = 'x-tributary-origin';

/**
 * Whether a header (its lowercase name) may carry a credential, and so is never kept: its name says
 * it is secret, it is the edge's origin secret, or it is one of `secretHeaders` (lowercase: the headers the source's signature
 * settings read, and every preset's). The one rule for what a rejection and an envelope leave out.
 */
export function isCredentialHeader(lowerName: string, secretHeaders: ReadonlySet<string>): boolean {
  return lowerName === edgeOriginHeader || secretName.test(lowerName) || secretHeaders.has(lowerName);
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
