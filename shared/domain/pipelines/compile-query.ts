/**
 * A definition compiled into what runs on each envelope: decode the payload (decoding.ts), keep or
 * filter the row (`where`), and convert each column's value to its type, or reject the row saying why.
 */
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
/** ISO 8601 date-times as text formats carry them: a date, or a date and time with an optional offset. */
const isoTimestamp = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

function describe(value: unknown): string {
  return Array.isArray(value) ? 'array' : typeof value;
}

function timestampOfText(value: string): bigint | null {
  const millis = Date.parse(value);
  if (!Number.isFinite(millis)) return null;
  const fraction = /\.(\d{4,9})/.exec(value)?.[1];
  const extraMicros = fraction ? Number(fraction.padEnd(6, '0').slice(3, 6)) : 0;
  return BigInt(millis) * 1000n + BigInt(extraMicros);
}

function longOfText(value: string): bigint | null {
  if (!/^-?\d{1,19}$/.test(value)) return null;
  const parsed = BigInt(value);
  return parsed <= maxLong && parsed >= minLong ? parsed : null;
}

/** An object or array as JSON text; one nested too deeply to write (thousands of levels) rejects its row. */
function jsonText(value: object, column: ColumnDefinition): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError)
      throw new RowRejected(`column ${column.name}: value nested too deeply to write as text`);
    throw error;
  }
}

/** A JSON value as the column's type. */
function convertJson(value: unknown, column: ColumnDefinition): Cell {
  if (value === undefined || value === null) return null;
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
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      throw wrongType();
    case 'boolean':
      if (typeof value === 'boolean') return value;
      throw wrongType();
    case 'timestamp': {
      if (typeof value === 'number' && Number.isFinite(value)) {
        // Epoch seconds (10 digits) or milliseconds (13 digits), as senders commonly send them.
        const millis = Math.abs(value) < 1e11 ? value * 1000 : value;
        return BigInt(Math.round(millis * 1000));
      }
      const parsed = typeof value === 'string' ? timestampOfText(value) : null;
      if (parsed === null) throw wrongType();
      return parsed;
    }
  }
}

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
      const parsed = longOfText(text.replace(/^\+/, ''));
      if (parsed === null) throw refuse();
      return parsed;
    }
    case 'double': {
      const parsed = Number(text);
      if (!Number.isFinite(parsed) || !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text)) throw refuse();
      return parsed;
    }
    case 'boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw refuse();
    case 'timestamp': {
      const parsed = isoTimestamp.test(text) ? timestampOfText(text) : null;
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
