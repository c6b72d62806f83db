/** "Try it": the curl a person pastes to send a first webhook, and a button that copies it. */
import { el } from '../../dom.ts';

/** The curl a person pastes to try the connection (the token is theirs: shown once at creation). */
export function curlFor(ingestUrl: string): string {
  return `curl -X POST '${ingestUrl}' \\\n  -H 'Authorization: Bearer <ingest token>' \\\n  -H 'Content-Type: application/json' \\\n  -d '{"hello": "world"}'`;
}

/** `tell` shows the page's notice: copied, or (where the clipboard is refused) selected for Ctrl-C. */
export function tryIt(ingestUrl: string, tell: (text: string) => void): HTMLElement {
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
