import { dedupText, handshakeText, keyText, signatureText } from '../../../shared/domain/connections/preset-guide.ts';
import { type PresetText, presetTexts } from '../../../shared/domain/connections/preset-texts.ts';
import { type Preset, presets } from '../../../shared/domain/connections/presets.ts';
import { api } from '../api.ts';
import { el, errorBox, replace } from '../dom.ts';

type Scheme = keyof typeof presets;
export interface Security {
  auth_mode: string;
  signature: { scheme: string; header: string | null; tolerance_seconds: number | null } | null;
  dedup_window_seconds: number;
  dedup_key: { header: string } | { json_pointer: string } | null;
  rate_limit: { requests_per_second: number; burst: number } | null;
  ip_allowlist: string[] | null;
  signing_secret?: string;
}

const schemes = (Object.keys(presets) as Scheme[]).sort((a, b) =>
  presetTexts[a].label.localeCompare(presetTexts[b].label, 'en'),
);

const fact = (term: string, ...value: (Node | string)[]) => [el('dt', {}, term), el('dd', {}, ...value)];

/** What the provider's console asks for, and what Tributary checks, for one preset. */
function presetFacts(preset: Preset, text: PresetText, ingestUrl: string) {
  return el(
    'dl',
    { class: 'facts' },
    fact('URL to paste', el('code', {}, ingestUrl)),
    fact('Where', text.setup),
    fact('Signature', signatureText(preset.verification)),
    fact('Handshake', handshakeText(preset.handshake)),
    fact('Deduplicated by', dedupText(preset.dedupKey)),
    fact('Tributary needs', keyText(preset)),
  );
}

/**
 * Pointing a provider at the connection: pick its preset, give what it signs with (its secret, a
 * public key, Meta's verify token), and see what to paste in the provider's console. A generated
 * secret is shown here once. Those who may not manage connections see the current preset only.
 */
export function senderSetupSection(
  base: string,
  ingestUrl: string,
  security: Security,
  mayManage: boolean,
  onSaved: (security: Security) => void,
) {
  const element = el('div');
  const outcome = el('div', { 'aria-live': 'polite' });
  const current = security.signature?.scheme as Scheme | undefined;
  const guide = el('div');
  const scheme = el(
    'select',
    { id: 'sender-scheme', name: 'sender-scheme' },
    schemes.map((name) => el('option', { value: name, selected: name === current }, presetTexts[name].label)),
  );
  const secret = el('input', {
    id: 'sender-secret',
    name: 'sender-secret',
    type: 'text',
    autocomplete: 'off',
    size: 40,
  });
  const publicKey = el('textarea', { id: 'sender-public-key', name: 'sender-public-key', rows: 3, cols: 48 });
  const verifyToken = el('input', { id: 'sender-verify-token', name: 'sender-verify-token', type: 'text', size: 30 });
  const dedupWindow = el('input', {
    id: 'sender-dedup-window',
    name: 'sender-dedup-window',
    type: 'number',
    min: 0,
    max: 604800,
    step: 1,
    value: security.dedup_window_seconds || 86400,
  });
  const secretRow = el('p', {}, el('label', { for: 'sender-secret' }, 'Signing secret'), ' ', secret);
  const publicKeyRow = el('p', {}, el('label', { for: 'sender-public-key' }, 'Public key'), ' ', publicKey);
  const verifyTokenRow = el('p', {}, el('label', { for: 'sender-verify-token' }, 'Verify token'), ' ', verifyToken);

  const show = () => {
    const preset: Preset = presets[scheme.value as Scheme];
    replace(guide, presetFacts(preset, presetTexts[scheme.value as Scheme], ingestUrl));
    secretRow.hidden = preset.secretFrom === 'public-key';
    publicKeyRow.hidden = preset.secretFrom !== 'public-key';
    verifyTokenRow.hidden = !preset.handshake?.verifyTokenParam;
    secret.placeholder = !preset.secretFrom ? 'as the provider shows it' : 'leave empty to generate one';
  };
  scheme.addEventListener('change', show);

  const save = async () => {
    const signature: Record<string, string> = { scheme: scheme.value };
    for (const [name, input] of [
      ['secret', secret],
      ['public_key', publicKey],
      ['verify_token', verifyToken],
    ] as const) {
      if (!input.closest('p')?.hidden && input.value.trim()) signature[name] = input.value.trim();
    }
    try {
      const saved = await api<Security>(`${base}/security`, {
        method: 'PUT',
        body: {
          auth_mode: 'signature',
          signature,
          dedup_window_seconds: Number(dedupWindow.value) || 0,
          dedup_key: security.dedup_key,
          rate_limit: security.rate_limit,
          ip_allowlist: security.ip_allowlist,
        },
      });
      secret.value = '';
      verifyToken.value = '';
      replace(
        outcome,
        el('p', { class: 'notice' }, `Senders now sign as ${presetTexts[scheme.value as Scheme].label}.`),
        saved.signing_secret
          ? el(
              'dl',
              { class: 'facts' },
              fact(
                'Signing secret to paste (shown once)',
                el('code', { id: 'sender-signing-secret' }, saved.signing_secret),
              ),
            )
          : null,
      );
      onSaved(saved);
    } catch (error) {
      replace(outcome, errorBox(error));
    }
  };

  show();
  replace(
    element,
    el(
      'p',
      { class: 'muted' },
      'A provider signs its webhooks its own way; pick it, and Tributary checks its signature, answers its handshake and deduplicates by its event id. The bearer token is then not needed.',
    ),
    mayManage
      ? el(
          'form',
          {
            'aria-label': 'Point a provider at this connection',
            onsubmit: (event: Event) => {
              event.preventDefault();
              void save();
            },
          },
          el('p', {}, el('label', { for: 'sender-scheme' }, 'Provider'), ' ', scheme),
          guide,
          secretRow,
          publicKeyRow,
          verifyTokenRow,
          el('p', {}, el('label', { for: 'sender-dedup-window' }, 'Deduplication window (seconds)'), ' ', dedupWindow),
          el('button', { type: 'submit' }, 'Use this provider'),
        )
      : current
        ? presetFacts(presets[current], presetTexts[current], ingestUrl)
        : el('p', {}, 'No provider: senders use the bearer token.'),
    outcome,
  );
  return element;
}
