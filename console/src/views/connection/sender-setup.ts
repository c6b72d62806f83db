import {
  dedupText,
  handshakeText,
  keyText,
  signatureText,
} from '../../../../shared/domain/connections/preset-guide.ts';
import { type PresetText, presetTexts } from '../../../../shared/domain/connections/preset-texts.ts';
import { type Preset, presets } from '../../../../shared/domain/connections/presets.ts';
import { api, type Body, type SourceSecurity } from '../../api.ts';
import { el, facts, notice, outcomeRegion, replace, showOutcome } from '../../dom.ts';

type Scheme = keyof typeof presets;
type SecurityBody = Body<'/api/connections/{connection_id}/security', 'put'>;

const schemes = (Object.keys(presets) as Scheme[]).sort((a, b) =>
  presetTexts[a].label.localeCompare(presetTexts[b].label, 'en'),
);

/** What the provider's console asks for, and what Tributary checks, for one preset. */
function presetFacts(preset: Preset, text: PresetText, ingestUrl: string) {
  return facts(
    ['URL to paste', el('code', {}, ingestUrl)],
    ['Where', text.setup],
    ['Signature', signatureText(preset.verification)],
    ['Handshake', handshakeText(preset.handshake)],
    ['Deduplicated by', dedupText(preset.dedupKey)],
    ['Tributary needs', keyText(preset)],
  );
}

/** The picker's first choice, and what it shows when the connection has no provider: the bearer token alone. */
const bearerOnly = { value: '', label: 'None: the bearer token only' } as const;

/** What senders do without a provider. */
const bearerFacts = (ingestUrl: string) =>
  facts(
    ['URL to paste', el('code', {}, ingestUrl)],
    ['Senders send', el('code', {}, 'Authorization: Bearer <the connection’s ingest token>')],
    ['Deduplicated by', 'webhook-id, else Idempotency-Key (within the deduplication window)'],
  );

/** A control on a line of its own, after its label. */
const line = (id: string, label: string, control: HTMLElement) =>
  el('p', {}, el('label', { for: id }, label), ' ', control);

/**
 * Pointing a provider at the connection: pick its preset, give what it signs with (its secret, a
 * public key, Meta's verify token), and see what to paste in the provider's console. A generated
 * secret is shown here once. Those who may not manage connections see the current preset only.
 */
export function senderSetupSection(
  base: string,
  ingestUrl: string,
  security: SourceSecurity,
  mayManage: boolean,
  onSaved: (security: SourceSecurity) => void,
): HTMLElement {
  const current = security.signature?.scheme as Scheme | undefined;
  return el(
    'div',
    {},
    el(
      'p',
      { class: 'muted' },
      'A provider signs its webhooks its own way; pick it, and Tributary checks its signature, answers its handshake and deduplicates by its event id. The bearer token is then not needed.',
    ),
    mayManage
      ? providerForm(base, ingestUrl, security, onSaved)
      : current
        ? presetFacts(presets[current], presetTexts[current], ingestUrl)
        : el('p', {}, 'No provider: senders use the bearer token.'),
  );
}

/** The form: the inputs a preset asks for show as it is picked; saving keeps the rest of the settings as they are. */
function providerForm(
  base: string,
  ingestUrl: string,
  security: SourceSecurity,
  onSaved: (security: SourceSecurity) => void,
): HTMLElement {
  const outcome = outcomeRegion();
  const current = security.signature?.scheme as Scheme | undefined;
  const guide = el('div');
  // No provider until one is picked: the first of an alphabetical list would be a guess.
  const scheme = el(
    'select',
    { id: 'sender-scheme', name: 'sender-scheme' },
    el('option', { value: bearerOnly.value, selected: !current }, bearerOnly.label),
    schemes.map((name) => el('option', { value: name, selected: name === current }, presetTexts[name].label)),
  );
  const picked = (): Scheme | null => schemes.find((name) => name === scheme.value) ?? null;
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
    // As set: 0 is deduplication off, and saving keeps it off.
    value: security.dedup_window_seconds,
  });
  const secretLine = line('sender-secret', 'Signing secret', secret);
  const publicKeyLine = line('sender-public-key', 'Public key', publicKey);
  const verifyTokenLine = line('sender-verify-token', 'Verify token', verifyToken);

  const show = () => {
    const name = picked();
    if (!name) {
      replace(guide, bearerFacts(ingestUrl));
      secretLine.hidden = true;
      publicKeyLine.hidden = true;
      verifyTokenLine.hidden = true;
      return;
    }
    const preset: Preset = presets[name];
    replace(guide, presetFacts(preset, presetTexts[name], ingestUrl));
    secretLine.hidden = preset.secretFrom === 'public-key';
    publicKeyLine.hidden = preset.secretFrom !== 'public-key';
    verifyTokenLine.hidden = !preset.handshake?.verifyTokenParam;
    secret.placeholder = !preset.secretFrom ? 'as the provider shows it' : 'leave empty to generate one';
  };
  scheme.addEventListener('change', show);
  show();

  const save = () =>
    showOutcome(outcome, async () => {
      const name = picked();
      const signature: SecurityBody['signature'] = name ? { scheme: name } : null;
      // The same provider again: what this form does not show (set through the API) stays as it is,
      // since a PUT without it would put the scheme's defaults back (another header, no tolerance).
      const current = security.signature;
      if (signature && current?.scheme === name) {
        if (current.header) signature.header = current.header;
        if (current.encoding) signature.encoding = current.encoding;
        if (typeof current.tolerance_seconds === 'number') signature.tolerance_seconds = current.tolerance_seconds;
      }
      for (const [field, input] of [
        ['secret', secret],
        ['public_key', publicKey],
        ['verify_token', verifyToken],
      ] as const) {
        if (signature && !input.closest('p')?.hidden && input.value.trim()) signature[field] = input.value.trim();
      }
      const body: SecurityBody = {
        // A connection that also takes the bearer token keeps taking it.
        auth_mode: name
          ? security.auth_mode === 'bearer_and_signature'
            ? 'bearer_and_signature'
            : 'signature'
          : 'bearer',
        signature,
        dedup_window_seconds: Number(dedupWindow.value) || 0,
        dedup_key: security.dedup_key,
        rate_limit: security.rate_limit,
        ip_allowlist: security.ip_allowlist,
      };
      const saved = await api<SourceSecurity>(`${base}/security`, { method: 'PUT', body });
      secret.value = '';
      verifyToken.value = '';
      onSaved(saved);
      return [
        notice(name ? `Senders now sign as ${presetTexts[name].label}.` : 'Senders now send the bearer token only.'),
        saved.signing_secret
          ? facts([
              'Signing secret to paste (shown once)',
              el('code', { id: 'sender-signing-secret' }, saved.signing_secret),
            ])
          : null,
      ];
    });

  return el(
    'div',
    {},
    el(
      'form',
      {
        'aria-label': 'Point a provider at this connection',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void save();
        },
      },
      line('sender-scheme', 'Provider', scheme),
      guide,
      secretLine,
      publicKeyLine,
      verifyTokenLine,
      line('sender-dedup-window', 'Deduplication window (seconds)', dedupWindow),
      el('button', { type: 'submit' }, 'Use this provider'),
    ),
    outcome,
  );
}
