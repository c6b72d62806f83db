import { ApiError, api, type Caller, session } from '../api.ts';
import { el, errorBox, replace } from '../dom.ts';

/** The key is kept in this tab's sessionStorage only: never in a URL, a cookie or localStorage. */
export function signInView(
  message: { text: string; error: boolean } | undefined,
  signedIn: () => Promise<void>,
): HTMLElement {
  const status = el(
    'div',
    { 'aria-live': 'polite' },
    message ? el('p', message.error ? { class: 'error', role: 'alert' } : { class: 'notice' }, message.text) : null,
  );
  const input = el('input', {
    id: 'api-key',
    name: 'api-key',
    type: 'password',
    autocomplete: 'off',
    required: true,
    spellcheck: 'false',
  });
  const form = el(
    'form',
    {
      onsubmit: async (event: Event) => {
        event.preventDefault();
        session.signIn(input.value.trim());
        try {
          await api<Caller>('api/me');
          await signedIn();
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 401)) session.signOut();
          replace(status, errorBox(error));
        }
      },
    },
    el('label', { for: 'api-key' }, 'API key'),
    input,
    el('button', { type: 'submit' }, 'Sign in'),
  );
  return el(
    'main',
    { class: 'sign-in' },
    el('h1', {}, 'Tributary console'),
    el(
      'p',
      {},
      'Sign in with an API key (trb_key_…). It is kept in this browser tab only, until you sign out or close it.',
    ),
    form,
    status,
  );
}
