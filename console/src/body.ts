/** A webhook body, decoded from base64 and shown as text: pretty JSON when it parses, else as sent. */
import type { Schemas } from './api.ts';
import { bytes, el } from './dom.ts';

export function decodeBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function hexDump(raw: Uint8Array): string {
  const lines: string[] = [];
  for (let offset = 0; offset < Math.min(raw.length, 512); offset += 16) {
    const row = Array.from(raw.subarray(offset, offset + 16), (byte) => byte.toString(16).padStart(2, '0'));
    lines.push(`${offset.toString(16).padStart(6, '0')}  ${row.join(' ')}`);
  }
  return lines.join('\n');
}

export function bodyView(
  event: Pick<Schemas['Event'], 'payload' | 'payload_size' | 'payload_truncated' | 'content_type'>,
): HTMLElement {
  const raw = decodeBase64(event.payload);
  let text: string | null;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    text = null;
  }
  let shown: string;
  let kind: string;
  if (text === null) {
    kind = `binary, ${bytes(event.payload_size)}: the first bytes in hexadecimal`;
    shown = hexDump(raw);
  } else {
    try {
      shown = event.payload_truncated ? text : JSON.stringify(JSON.parse(text), null, 2);
      kind = event.payload_truncated ? 'text' : 'JSON';
    } catch {
      shown = text;
      kind = 'text';
    }
  }
  return el(
    'div',
    { class: 'body' },
    el(
      'p',
      { class: 'muted' },
      `Body (${kind})`,
      event.payload_truncated ? ` — the first ${bytes(raw.length)} of ${bytes(event.payload_size)}` : '',
    ),
    el('pre', { tabindex: 0, 'aria-label': 'Body' }, shown),
  );
}
