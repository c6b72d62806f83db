/** How a connection checks its senders: authentication, signature, deduplication, rate limit, allowed addresses. */
import type { SourceSecurity } from '../../api.ts';
import { el, facts, replace } from '../../dom.ts';

function signatureSetting(signature: SourceSecurity['signature']): string {
  if (!signature) return 'none';
  const header = signature.header ? ` in ${signature.header}` : '';
  const tolerance = signature.tolerance_seconds ? `, tolerance ${signature.tolerance_seconds} s` : '';
  return `${signature.scheme}${header}${tolerance}`;
}

/** `show` draws them again, once the operator has changed them. */
export function securitySettings(first: SourceSecurity) {
  const element = el('div');
  const show = (security: SourceSecurity) =>
    replace(
      element,
      facts(
        ['Authentication', security.auth_mode],
        ['Signature', signatureSetting(security.signature), 'signature-scheme'],
        ['Deduplication window', security.dedup_window_seconds ? `${security.dedup_window_seconds} s` : 'off'],
        [
          'Rate limit',
          security.rate_limit
            ? `${security.rate_limit.requests_per_second}/s, burst ${security.rate_limit.burst}`
            : 'none',
        ],
        ['IP allowlist', security.ip_allowlist?.join(', ') || 'any address'],
      ),
    );
  show(first);
  return { element, show };
}
