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

/**
 * JSON text indented by two spaces, every value spelled as sent: JSON.stringify(JSON.parse(…)) would
 * round an id past 2^53 (12345678901234567891 shows as …7000) and respell 1.10 as 1.1. The text must
 * be valid JSON (checked by JSON.parse first); only whitespace outside strings changes.
 */
export function indentJson(text: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] as string)) j++;
      if (text[j] === close) {
        out += c + close;
        i = j;
      } else {
        depth++;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += newline() + c;
    } else if (c === ',') out += `,${newline()}`;
    else if (c === ':') out += ': ';
    else if (!/\s/.test(c)) out += c;
  }
  return out;
}

/** UTF-8 text of a body's first bytes, a character the cut split left out; null when it is not UTF-8. */
function utf8Of(raw: Uint8Array, truncated: boolean): string | null {
  for (let drop = 0; drop <= (truncated ? 3 : 0); drop++) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(raw.subarray(0, raw.length - drop));
    } catch {
      // The next shorter cut, or not text.
    }
  }
  return null;
}

export function bodyView(
  event: Pick<Schemas['Event'], 'payload' | 'payload_size' | 'payload_truncated' | 'content_type'>,
): HTMLElement {
  const raw = decodeBase64(event.payload);
  const text = utf8Of(raw, event.payload_truncated);
  let shown: string;
  let kind: string;
  if (text === null) {
    kind = `binary, ${bytes(event.payload_size)}: the first bytes in hexadecimal`;
    shown = hexDump(raw);
  } else {
    try {
      if (!event.payload_truncated) JSON.parse(text);
      shown = event.payload_truncated ? text : indentJson(text);
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
