/**
 * Integers a JSON payload holds past what a double keeps exactly (2^53): `JSON.parse` rounds
 * 12345678901234567891 to 12345678901234567000, and a pipeline would write an id that never was.
 * Before parsing, each such integer literal (outside strings) is turned into a string carrying a tag
 * no payload can hold (a NUL and a random mark of this process), so that the parsed document keeps
 * its digits; the columns read them back exactly (bigIntegerDigits), and JSON text written of an
 * object gives them back as numbers (jsonWithBigIntegers).
 */
import { randomBytes } from 'node:crypto';

const tag = `\u0000${randomBytes(8).toString('hex')}:`;
/** Integers of more than 15 digits: some are exact as doubles, and are kept as digits all the same. */
const longDigits = /\d{16}/;
const numberToken = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/** The JSON text with its long integer literals as tagged strings; the text itself when it holds none. */
export function tagBigIntegers(text: string): string {
  if (!longDigits.test(text)) return text;
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skipped whole, escapes included.
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      numberToken.lastIndex = i;
      const match = numberToken.exec(text);
      if (!match) {
        i++;
        continue;
      }
      const token = match[0];
      if (!match[1] && !match[2] && token.replace('-', '').length > 15) {
        parts.push(text.slice(from, i), JSON.stringify(`${tag}${token}`));
        from = i + token.length;
      }
      i += token.length;
      continue;
    }
    i++;
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}

/** The digits of a long integer a tagged document holds at this value; null for any other value. */
export function bigIntegerDigits(value: unknown): string | null {
  return typeof value === 'string' && value.startsWith(tag) ? value.slice(tag.length) : null;
}

/** A tagged integer as JSON.stringify writes it (the NUL escaped), to write back as its digits. */
const taggedInJson = new RegExp(`"${JSON.stringify(tag).slice(1, -1).replace(/\\/g, '\\\\')}(-?\\d+)"`, 'g');

/** A value as JSON text, its long integers written as the numbers they were. */
export function jsonWithBigIntegers(value: unknown): string {
  const text = JSON.stringify(value);
  return text.includes('\\u0000') ? text.replaceAll(taggedInJson, '$1') : text;
}
