/**
 * Tributary's operator console: a hash-routed page over the same API, signed in with an API key
 * that lives in sessionStorage only. Each view renders into <main> with a signal of its own, which
 * the router aborts when the operator goes elsewhere: it ends the view's timers and requests (view.ts).
 */
import { api, type Caller, session, whenUnauthorized } from './api.ts';
import { el, errorBox, replace } from './dom.ts';
import { type View, whenLeft } from './view.ts';
import { connectionView } from './views/connection.ts';
import { eventsView } from './views/events.ts';
import { jobView } from './views/job.ts';
import { overviewView, tenantView } from './views/overview.ts';
import { pipelineEditorView } from './views/pipeline-editor.ts';
import { pipelinesView } from './views/pipelines.ts';
import { signInView } from './views/sign-in.ts';

const routes: [RegExp, (match: RegExpExecArray) => View][] = [
  [/^#\/connections\/([\w-]+)\/events$/, (match) => eventsView(match[1] as string)],
  [/^#\/connections\/([\w-]+)$/, (match) => connectionView(match[1] as string)],
  [/^#\/tenants\/([\w-]+)$/, (match) => tenantView(match[1] as string)],
  [/^#\/pipelines\/new$/, () => pipelineEditorView(null)],
  [/^#\/pipelines\/([\w-]+)$/, (match) => pipelineEditorView(match[1] as string)],
  [/^#\/pipelines$/, () => pipelinesView],
  [/^#\/jobs\/([\w-]+)$/, (match) => jobView(match[1] as string)],
  [/^(#\/?)?$/, () => overviewView],
];

const root = document.getElementById('app') as HTMLElement;
/** The view shown: aborted when it is left, the one place a view's timers and requests end. */
let shown: AbortController | null = null;
let caller: Caller | null = null;

function leaveView(): AbortSignal {
  shown?.abort();
  shown = new AbortController();
  return shown.signal;
}

function showSignIn(message?: { text: string; error: boolean }): void {
  leaveView();
  caller = null;
  replace(
    root,
    signInView(message, async () => {
      await render();
    }),
  );
}

whenUnauthorized((text) => showSignIn({ text, error: true }));

function navigation(current: Caller): HTMLElement {
  const link = (href: string, label: string) => {
    const active = href === '#/' ? ['', '#', '#/'].includes(location.hash) : location.hash.startsWith(href);
    return el('a', { href, 'aria-current': active ? 'page' : null }, label);
  };
  return el(
    'header',
    {},
    el('span', { class: 'brand' }, 'Tributary'),
    el('nav', { 'aria-label': 'Console' }, link('#/', 'Overview'), link('#/pipelines', 'Pipelines and jobs')),
    el(
      'span',
      { class: 'who' },
      `${current.role}${current.tenant_id ? ` · tenant ${current.tenant_id.slice(0, 8)}` : ''} `,
      el(
        'button',
        {
          type: 'button',
          onclick: () => {
            session.signOut();
            showSignIn({ text: 'Signed out.', error: false });
          },
        },
        'Sign out',
      ),
    ),
  );
}

async function render(): Promise<void> {
  const signal = leaveView();
  if (!session.key()) return showSignIn();
  try {
    caller ??= await api<Caller>('api/me', { signal });
  } catch (error) {
    if (!session.key() || signal.aborted) return; // a 401 already went back to the sign-in; or the operator went on
    replace(root, el('main', {}, errorBox(error)));
    return;
  }
  if (signal.aborted) return;
  const main = el('main', { id: 'main' });
  replace(root, navigation(caller), main);
  const [pattern, viewOf] =
    routes.find(([pattern]) => pattern.test(location.hash)) ?? (routes.at(-1) as (typeof routes)[number]);
  const view = viewOf(pattern.exec(location.hash) as RegExpExecArray);
  try {
    const stop = await view(main, caller, signal);
    if (stop) whenLeft(signal, stop);
  } catch (error) {
    if (session.key() && !signal.aborted) replace(main, errorBox(error));
  }
}

window.addEventListener('hashchange', () => void render());
void render();
