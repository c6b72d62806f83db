/**
 * A definition compiled into what runs on each envelope: decode the payload (decoding.ts), keep or
 * filter the row (`where`), and convert each column's value to its type, or reject the row saying why.
 */
import { bigIntegerDigits, jsonWithBigIntegers } from './big-integers.ts';
import type { DecodeFormat } from './decode-formats.ts';
import { decodePayload } from './decoding.ts';
import {
  type ColumnDefinition,
  headerValue,
  parseValuePath,
  type QuerySpecification,
  type ValuePath,
  valueAt,
} from './definition.ts';

/** A decoded cell: long and timestamp (microseconds) as bigint, the others as JSON has them. */
export type Cell = string | bigint | number | boolean | null;

export class RowRejected extends Error {}

const maxLong = 9223372036854775807n;
const minLong = -9223372036854775808n;
/**
 * ISO 8601 as payloads carry it: a date, or a date and time (`T` or a space between) with seconds,
 * a fraction and an offset optional. Nothing else: `Date.parse` also takes "1", "Mar 7" and
 * "7/4/2024", and reads a time without an offset in the process's own time zone.
 */
const isoTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

/** Microseconds since 1970 of years 0001 to 9999, what a timestamp column (and Parquet's statistics) holds. */
const firstMicros = -62135596800000000n;
const lastMicros = 253402300799999999n;

function describe(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value;
}

/** An ISO 8601 date or date-time as microseconds since 1970, UTC where it names no offset; null for anything else. */
export function timestampOfText(value: string): bigint | null {
  const match = isoTimestamp.exec(value);
  if (!match) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map((part) => Number(part ?? 0));
  const [fraction = '', zone, sign, offsetHours = '0', offsetMinutes = '0'] = match.slice(7);
  if (hour > 23 || minute > 59 || second > 59 || Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // A day the month does not have ("2024-02-31") rolls over into the next: not a date.
  if (year === 0 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day)
    return null;
  date.setUTCHours(hour, minute, second, 0);
  const offsetMinutesTotal =
    zone && sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) : 0;
  const micros =
    BigInt(date.getTime() - offsetMinutesTotal * 60_000) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  return micros >= firstMicros && micros <= lastMicros ? micros : null;
}

/**
 * An epoch number as microseconds: seconds, milliseconds, microseconds or nanoseconds, told apart by
 * size (below 1e11, 1e14, 1e17, 1e20: each unit's dates from 1973 to 5138 in the next), as senders send
 * them; null outside years 0001 to 9999.
 */
function timestampOfEpoch(value: number): bigint | null {
  const size = Math.abs(value);
  const micros =
    size < 1e11
      ? value * 1e6
      : size < 1e14
        ? value * 1e3
        : size < 1e17
          ? value
          : size < 1e20
            ? value / 1e3
            : Number.NaN;
  if (!Number.isFinite(micros)) return null;
  const exact = BigInt(Math.round(micros));
  return exact >= firstMicros && exact <= lastMicros ? exact : null;
}

function longOfText(value: string): bigint | null {
  if (!/^-?\d{1,19}$/.test(value)) return null;
  const parsed = BigInt(value);
  return parsed <= maxLong && parsed >= minLong ? parsed : null;
}

/** An object or array as JSON text; one nested too deeply to write (thousands of levels) rejects its row. */
function jsonText(value: object, column: ColumnDefinition): string {
  try {
    return jsonWithBigIntegers(value);
  } catch (error) {
    if (error instanceof RangeError)
      throw new RowRejected(`column ${column.name}: value nested too deeply to write as text`);
    throw error;
  }
}

const timestampRejected = (column: ColumnDefinition, got: string) =>
  new RowRejected(
    `column ${column.name}: expected an ISO 8601 timestamp or epoch number of years 0001 to 9999, got ${got}`,
  );

/** An integer past 2^53 (its digits kept, big-integers.ts) as the column's type. */
function convertBigInteger(digits: string, column: ColumnDefinition): Cell {
  const wrongType = () => new RowRejected(`column ${column.name}: expected ${column.type}, got number`);
  switch (column.type) {
    case 'string':
      return digits;
    case 'long': {
      const parsed = longOfText(digits);
      if (parsed === null) throw new RowRejected(`column ${column.name}: ${clip(digits)} is past a long’s range`);
      return parsed;
    }
    case 'double':
      return Number(digits);
    case 'timestamp': {
      const parsed = timestampOfEpoch(Number(digits));
      if (parsed === null) throw timestampRejected(column, 'number');
      return parsed;
    }
    case 'boolean':
      throw wrongType();
  }
}

/** A JSON value as the column's type. */
function convertJson(value: unknown, column: ColumnDefinition): Cell {
  if (value === undefined || value === null) return null;
  const digits = bigIntegerDigits(value);
  if (digits !== null) return convertBigInteger(digits, column);
  const wrongType = () => new RowRejected(`column ${column.name}: expected ${column.type}, got ${describe(value)}`);
  switch (column.type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      if (typeof value === 'object') return jsonText(value, column);
      throw wrongType();
    case 'long': {
      if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
      const parsed = typeof value === 'string' ? longOfText(value) : null;
      if (parsed === null) throw wrongType();
      return parsed;
    }
    case 'double':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && decimalText.test(value) && Number.isFinite(Number(value))) return Number(value);
      throw wrongType();
    case 'boolean':
      if (typeof value === 'boolean') return value;
      throw wrongType();
    case 'timestamp': {
      const parsed =
        typeof value === 'number' ? timestampOfEpoch(value) : typeof value === 'string' ? timestampOfText(value) : null;
      if (parsed === null)
        throw timestampRejected(column, typeof value === 'string' ? `"${clip(value)}"` : describe(value));
      return parsed;
    }
  }
}

/** A decimal number as text: digits, an optional sign, fraction and exponent (no hex, no spaces, no "Infinity"). */
const decimalText = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A value of an XML or form document (text, or an element's object, or an array of repeats) as the
 * column's type. Text converts (surrounding whitespace aside); an empty text is no value (null)
 * for every type but string; a text that does not convert rejects the row.
 */
function convertText(value: unknown, column: ColumnDefinition): Cell {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    if (column.type === 'string') return JSON.stringify(value);
    throw new RowRejected(`column ${column.name}: expected ${column.type}, got ${describe(value)}`);
  }
  if (column.type === 'string') return value;
  const text = value.trim();
  if (text === '') return null;
  const refuse = () => new RowRejected(`column ${column.name}: "${clip(text)}" is not a ${column.type}`);
  switch (column.type) {
    case 'long': {
      const parsed = /^\+\d/.test(text) ? longOfText(text.slice(1)) : longOfText(text);
      if (parsed === null) throw refuse();
      return parsed;
    }
    case 'double': {
      const parsed = Number(text);
      if (!Number.isFinite(parsed) || !decimalText.test(text)) throw refuse();
      return parsed;
    }
    case 'boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw refuse();
    case 'timestamp': {
      const parsed = timestampOfText(text);
      if (parsed === null) throw refuse();
      return parsed;
    }
  }
}

const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) && deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * Whether a document's value equals the filter's JSON value. A missing value equals null. In XML
 * and form documents, where values are text, a number equals the text of that number ("7", "7.0")
 * and true/false the texts "true"/"false".
 */
export function matchesFilter(value: unknown, equals: unknown, textValues: boolean): boolean {
  if (value === undefined) value = null;
  const digits = bigIntegerDigits(value);
  // The filter's own value went through JSON.parse: a long integer equals it as a number does.
  if (digits !== null) return typeof equals === 'number' && Number(digits) === equals;
  if (textValues && typeof value === 'string') {
    const text = value.trim();
    if (typeof equals === 'number') return text !== '' && Number(text) === equals;
    if (typeof equals === 'boolean') return text === String(equals);
  }
  return deepEqual(value, equals);
}

/** What a query makes of one decoded document: a row, a row the filter leaves out, or a rejection. */
export type RowOutcome = { cells: Cell[] } | { filtered: true } | { rejected: string };

/** A path's value in a row: a header's (text), or the document's at its steps; and whether it is text. */
function read(path: ValuePath, document: unknown, headers: Headers, textValues: boolean) {
  return 'header' in path
    ? { value: headerValue(headers, path.header), text: true }
    : { value: valueAt(document, path.steps), text: textValues };
}

/** The request headers an envelope kept (lowercase names), null for one stored before they were kept. */
export type Headers = Readonly<Record<string, string>> | null | undefined;

/**
 * A compiled query: one payload (bytes, content type and the envelope's headers) in, one outcome
 * per row it holds out (one row, or one per NDJSON line). Never throws for what a sender sent.
 */
export function compileQuery(
  spec: Pick<QuerySpecification, 'decode' | 'columns' | 'where'>,
): (payload: Uint8Array, contentType: string | null, headers?: Headers) => RowOutcome[] {
  const format: DecodeFormat = spec.decode.format;
  const compiled = spec.columns.map((column) => ({ column, path: parseValuePath(column.path) }));
  const where = spec.where ? { path: parseValuePath(spec.where.path), equals: spec.where.equals } : null;
  return (payload, contentType, headers) => {
    const decoded = decodePayload(format, payload, contentType);
    return decoded.documents.map((document): RowOutcome => {
      if ('rejected' in document) return document;
      if (where) {
        const { value, text } = read(where.path, document.value, headers, decoded.textValues);
        if (!matchesFilter(value, where.equals, text)) return { filtered: true };
      }
      try {
        return {
          cells: compiled.map(({ column, path }) => {
            const { value, text } = read(path, document.value, headers, decoded.textValues);
            return (text ? convertText : convertJson)(value, column);
          }),
        };
      } catch (error) {
        if (error instanceof RowRejected) return { rejected: error.message };
        throw error;
      }
    });
  };
}
