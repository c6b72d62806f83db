/**
 * Pipeline definitions, version 1: decode each envelope's payload as JSON and extract typed
 * columns by path into a new Delta table.
 *
 *   { "source": { "data_set_id": "…" },
 *     "decode": { "format": "json" },
 *     "columns": [ { "name": "action", "path": "$.action", "type": "string" }, … ],
 *     "output": { "name": "pull_requests" } }
 *
 * Paths: `$` then `.key`, `["key"]` or `[index]` steps. A missing value is null; a value of the wrong
 * type rejects the row (counted and sampled on the job), as does a payload that is not JSON.
 */
import * as z from 'zod';

export const columnTypes = ['string', 'long', 'double', 'boolean', 'timestamp'] as const;

const pathPattern = /^\$((\.[A-Za-z_][A-Za-z0-9_-]*)|(\["(?:[^"\\]|\\.)*"\])|(\[\d+\]))*$/;

export const columnDefinition = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'Column names are lowercase letters, digits and _, starting with a letter or _')
    .refine((name) => name !== 'dt', 'dt is the partition column'),
  path: z.string().max(512).regex(pathPattern, 'A path is $ followed by .key, ["key"] or [index] steps'),
  type: z.enum(columnTypes),
});

export const querySpecification = z.strictObject({
  source: z.strictObject({ data_set_id: z.uuid() }),
  decode: z.strictObject({ format: z.literal('json') }),
  columns: z
    .array(columnDefinition)
    .min(1)
    .max(200)
    .refine(
      (columns) => new Set(columns.map((column) => column.name)).size === columns.length,
      'Column names must be unique',
    ),
});

export const pipelineDefinition = querySpecification.extend({
  output: z.strictObject({
    name: z.string().trim().min(1).max(200),
  }),
});

export type QuerySpecification = z.infer<typeof querySpecification>;
export type PipelineDefinition = z.infer<typeof pipelineDefinition>;
export type ColumnDefinition = z.infer<typeof columnDefinition>;

type Step = string | number;

export function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  const pattern = /\.([A-Za-z_][A-Za-z0-9_-]*)|\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]/g;
  for (const match of path.slice(1).matchAll(pattern)) {
    if (match[1] !== undefined) steps.push(match[1]);
    else if (match[2] !== undefined) steps.push(JSON.parse(`"${match[2]}"`) as string);
    else steps.push(Number(match[3]));
  }
  return steps;
}

/** The value at a parsed path, undefined where the document has none. */
export function valueAt(document: unknown, steps: Step[]): unknown {
  let current: unknown = document;
  for (const step of steps) {
    if (current === null || current === undefined) return undefined;
    if (typeof step === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[step];
    } else {
      if (typeof current !== 'object' || Array.isArray(current)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}

/** A decoded cell: long and timestamp (microseconds) as bigint, the others as JSON has them. */
export type Cell = string | bigint | number | boolean | null;

export class RowRejected extends Error {}

function convert(value: unknown, column: ColumnDefinition): Cell {
  if (value === undefined || value === null) return null;
  const wrongType = () =>
    new RowRejected(
      `column ${column.name}: expected ${column.type}, got ${Array.isArray(value) ? 'array' : typeof value}`,
    );
  switch (column.type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      if (typeof value === 'object') return JSON.stringify(value);
      throw wrongType();
    case 'long':
      if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
      if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) {
        const parsed = BigInt(value);
        if (parsed <= 9223372036854775807n && parsed >= -9223372036854775808n) return parsed;
      }
      throw wrongType();
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
      if (typeof value === 'string') {
        const millis = Date.parse(value);
        if (Number.isFinite(millis)) {
          const fraction = /\.(\d{4,6})/.exec(value)?.[1];
          const extraMicros = fraction ? Number(fraction.padEnd(6, '0').slice(3, 6)) : 0;
          return BigInt(millis) * 1000n + BigInt(extraMicros);
        }
      }
      throw wrongType();
    }
  }
}

/** A compiled decoder: payload bytes in, one cell per column out (or RowRejected with the reason). */
export function compileDecoder(columns: ColumnDefinition[]): (payload: Buffer) => Cell[] {
  const compiled = columns.map((column) => ({ column, steps: parsePath(column.path) }));
  return (payload) => {
    let document: unknown;
    try {
      document = JSON.parse(payload.toString('utf8'));
    } catch {
      throw new RowRejected('payload is not valid JSON');
    }
    return compiled.map(({ column, steps }) => convert(valueAt(document, steps), column));
  };
}
