/**
 * "Try it": the curl a person pastes to send a first webhook, and a button that copies it; a connection that
 * takes signed requests only says so instead, since a curl with the bearer token alone is refused there.
 */
import type { SourceSecurity } from '../../api.ts';
import { el, replace } from '../../dom.ts';

/** The curl a person pastes to try the connection (the token is theirs: shown once at creation). */
export function curlFor(ingestUrl: string): string {
  return `curl -X POST '${ingestUrl}' \\\n  -H 'Authorization: Bearer <ingest token>' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"hello": "world"}'`;
}

/** `tell` shows the page's notice: copied, or (where the clipboard is refused) selected for Ctrl-C. */
function bearerCurl(ingestUrl: string, tell: (text: string) => void): HTMLElement {
  const curl = curlFor(ingestUrl);
  const block = el('pre', { id: 'curl', tabindex: 0, 'aria-label': 'curl command' }, curl);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(curl);
      tell('Copied.');
    } catch {
      getSelection()?.selectAllChildren(block);
      tell('Selected: copy it with Ctrl-C.');
    }
  };
  return el(
    'div',
    {},
    el('p', {}, 'Send a test webhook with the token you were given:'),
    block,
    el('button', { type: 'button', onclick: () => void copy() }, 'Copy curl'),
  );
}

/** `show` draws it again once the operator has changed how the connection checks its senders. */
export function tryIt(ingestUrl: string, first: SourceSecurity, tell: (text: string) => void) {
  const element = el('div');
  const show = (security: SourceSecurity) =>
    replace(
      element,
      security.auth_mode === 'bearer'
        ? bearerCurl(ingestUrl, tell)
        : el(
            'p',
            { id: 'try-signed' },
            `This connection takes only requests signed as ${security.signature?.scheme ?? 'its settings say'}, ` +
              'so a curl with the bearer token alone is refused (401). Send one from the provider (see ' +
              '“Point a provider at it”), or pick “None: the bearer token only” there to try it with curl.',
          ),
    );
  show(first);
  return { element, show };
}
