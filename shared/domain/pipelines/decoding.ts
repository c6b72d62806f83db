/**
 * Payload bytes to documents in the pipelines' path language, by format:
 *  - json: one document per payload (UTF-8; a repeated key keeps its last value, as JSON.parse does);
 *  - ndjson: one document per non-empty line (a line that is not JSON rejects that row only);
 *  - xml: one document per payload (see xml.ts for the mapping and the limits);
 *  - form: application/x-www-form-urlencoded, keys to values (`+` is a space, percent-escapes
 *    decoded in the content type's charset, UTF-8 by default); a repeated key becomes an array;
 *  - auto: by the envelope's content type (ndjson, json, xml, form), anything else as json.
 * XML and form values are text: columns convert them (see compile-query.ts). Every format refuses
 * malformed text (invalid UTF-8 is never replaced).
 */
import { tagBigIntegers } from './big-integers.ts';
import type { DecodeFormat } from './decode-formats.ts';
import { parseXml, XmlRejected, xmlLimits } from './xml.ts';

export type PayloadFormat = Exclude<DecodeFormat, 'auto'>;

export const decodeLimits = { maxDepth: xmlLimits.maxDepth, maxFormFields: 10_000 };

/** One row's document, or why it cannot be one. */
export type Decoded = { value: unknown } | { rejected: string };

export interface DecodedPayload {
  format: PayloadFormat;
  /** XML and form documents hold text only: columns and filters convert it. */
  textValues: boolean;
  documents: Decoded[];
}

/** The format `auto` picks for a content type (case-insensitive; parameters such as charset do not matter). */
export function formatOf(contentType: string | null): PayloadFormat {
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('x-ndjson') || type.includes('jsonl')) return 'ndjson';
  if (type.includes('json')) return 'json';
  if (type.includes('xml')) return 'xml';
  if (type.includes('x-www-form-urlencoded')) return 'form';
  return 'json';
}

class DecodeRejected extends Error {}

const decoders = new Map<string, InstanceType<typeof TextDecoder>>();

/** Bytes to text in an encoding (a WHATWG label), refusing malformed bytes rather than replacing them. */
function strictDecoder(label: string, what: string): (bytes: Uint8Array) => string {
  let decoder = decoders.get(label);
  if (!decoder) {
    try {
      decoder = new TextDecoder(label, { fatal: true });
    } catch {
      throw new DecodeRejected(`${what} encoding "${label}" is not supported`);
    }
    // Labels come from senders' content types: keep a few, not one per made-up label.
    if (decoders.size < 64) decoders.set(label, decoder);
  }
  const known = decoder;
  return (bytes) => {
    try {
      return known.decode(bytes);
    } catch {
      throw new DecodeRejected(`${what} is not valid ${label.toUpperCase()}`);
    }
  };
}

const utf8Text = strictDecoder('utf-8', 'payload');

/** XML bytes to text: a UTF-16 byte-order mark, else the declaration's encoding, else UTF-8. */
function xmlText(bytes: Uint8Array): string {
  let encoding = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = 'utf-16be';
  else {
    const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
    const declared = /^(?:\xEF\xBB\xBF)?<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/.exec(head);
    if (declared?.[1]) encoding = declared[1].toLowerCase();
  }
  return strictDecoder(encoding, 'payload')(bytes);
}

function parseJson(text: string, what: string): Decoded {
  try {
    // Integers past 2^53 keep their digits (big-integers.ts).
    return { value: JSON.parse(tagBigIntegers(text)) };
  } catch {
    return { rejected: `${what} is not valid JSON` };
  }
}

const isHex = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** Percent-decoding as browsers do it: `%` and two hex digits is a byte, `+` a space, anything else itself. */
function formBytes(latin1: string): Uint8Array {
  if (!latin1.includes('%') && !latin1.includes('+')) return Buffer.from(latin1, 'latin1');
  const bytes = new Uint8Array(latin1.length);
  let n = 0;
  for (let i = 0; i < latin1.length; i++) {
    const c = latin1.charCodeAt(i);
    if (c === 0x25 && isHex(latin1.charCodeAt(i + 1)) && isHex(latin1.charCodeAt(i + 2))) {
      bytes[n++] = Number.parseInt(latin1.slice(i + 1, i + 3), 16);
      i += 2;
    } else bytes[n++] = c === 0x2b ? 0x20 : c;
  }
  return bytes.subarray(0, n);
}

function charsetOf(contentType: string | null): string {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase() ?? 'utf-8';
}

function parseForm(payload: Uint8Array, contentType: string | null): Record<string, unknown> {
  const text = strictDecoder(charsetOf(contentType), 'form field');
  // Keys such as "__proto__" are plain keys: the map has no prototype.
  const fields = Object.create(null) as Record<string, unknown>;
  const pairs = Buffer.from(payload).toString('latin1').split('&');
  let count = 0;
  for (const pair of pairs) {
    if (pair === '') continue;
    if (++count > decodeLimits.maxFormFields)
      throw new DecodeRejected(`form over ${decodeLimits.maxFormFields} fields`);
    const equals = pair.indexOf('=');
    const key = text(formBytes(equals < 0 ? pair : pair.slice(0, equals)));
    const value = equals < 0 ? '' : text(formBytes(pair.slice(equals + 1)));
    const existing = fields[key];
    if (existing === undefined) fields[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else fields[key] = [existing, value];
  }
  return fields;
}

/** Decodes one payload in `format` (`auto`: by its content type). Never throws for what a sender sent. */
export function decodePayload(format: DecodeFormat, payload: Uint8Array, contentType: string | null): DecodedPayload {
  const concrete = format === 'auto' ? formatOf(contentType) : format;
  const textValues = concrete === 'xml' || concrete === 'form';
  const one = (documents: Decoded[]): DecodedPayload => ({ format: concrete, textValues, documents });
  try {
    switch (concrete) {
      case 'json':
        return one([parseJson(utf8Text(payload), 'payload')]);
      case 'ndjson':
        return one(
          utf8Text(payload)
            .split('\n')
            .map((line, index) => ({ line: line.trim(), number: index + 1 }))
            .filter(({ line }) => line !== '')
            .map(({ line, number }) => parseJson(line, `line ${number}`)),
        );
      case 'xml':
        return one([{ value: parseXml(xmlText(payload)) }]);
      case 'form':
        return one([{ value: parseForm(payload, contentType) }]);
    }
  } catch (error) {
    if (error instanceof DecodeRejected || error instanceof XmlRejected) return one([{ rejected: error.message }]);
    throw error;
  }
}
