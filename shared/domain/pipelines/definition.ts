/**
 * Pipeline definitions, version 1: decode each envelope's payload and extract typed columns by
 * path into a new Delta table.
 *
 *   { "source": { "data_set_id": "…" },
 *     "decode": { "format": "json" | "xml" | "form" | "ndjson" | "auto" },
 *     "where": { "path": "$.type", "equals": "invoice.paid" },          (optional)
 *     "columns": [ { "name": "action", "path": "$.action", "type": "string" }, … ],
 *     "output": { "name": "pull_requests" },
 *     "on_new_data": true }                                             (optional)
 *
 * Paths: `$` then `.key`, `["key"]` or `[index]` steps. A missing value is null; a value of the wrong
 * type rejects the row (counted and sampled on the job), as does a payload that does not decode.
 * A row whose value at the `where` path is not the given JSON value is filtered: neither written nor
 * rejected, counted apart. XML and form values are text, converted to the column's type.
 */
import * as z from 'zod';
import { decodeFormats } from './decode-formats.ts';

export const columnTypes = ['string', 'long', 'double', 'boolean', 'timestamp'] as const;

const pathPattern = /^\$((\.[A-Za-z_][A-Za-z0-9_-]*)|(\["(?:[^"\\]|\\.)*"\])|(\[\d+\]))*$/;

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
const jsonValue: z.ZodType<JsonValue> = z
  .lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
  )
  .meta({ id: 'JsonValue', description: 'Any JSON value' });

const path = z.string().max(512).regex(pathPattern, 'A path is $ followed by .key, ["key"] or [index] steps');

export const columnDefinition = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'Column names are lowercase letters, digits and _, starting with a letter or _')
    .refine((name) => name !== 'dt', 'dt is the partition column'),
  path,
  type: z.enum(columnTypes),
});

export const querySpecification = z.strictObject({
  source: z.strictObject({ data_set_id: z.uuid() }),
  decode: z.strictObject({ format: z.enum(decodeFormats) }),
  where: z
    .strictObject({
      path,
      equals: jsonValue,
    })
    .optional(),
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
  /** Runs by itself, once deployed and while Active, within 2 minutes of new rows in its source. */
  on_new_data: z.boolean().optional(),
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

/** The value at a parsed path, undefined where the document has none: own keys only (a path never reaches an object's prototype). */
export function valueAt(document: unknown, steps: Step[]): unknown {
  let current: unknown = document;
  for (const step of steps) {
    if (current === null || current === undefined) return undefined;
    if (typeof step === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[step];
    } else {
      if (typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}
