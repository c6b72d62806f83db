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
 * Paths: `$` then `.key`, `["key"]` or `[index]` steps into the decoded body, or
 * `$headers["name"]` for a request header the envelope kept (name case-insensitive; the value is
 * text, converted as XML and form text is; null where the envelope has no such header, as on rows
 * stored before headers were kept). A missing value is null; a value of the wrong
 * type rejects the row (counted and sampled on the job), as does a payload that does not decode.
 * A row whose value at the `where` path is not the given JSON value is filtered: neither written nor
 * rejected, counted apart. XML and form values are text, converted to the column's type.
 *
 * A definition a caller gives is bounded (definitionLimits) so that the items holding it, the
 * pipeline, its deployed versions and a query's job, stay far under DynamoDB's 400 KB.
 */
import * as z from 'zod';
import { valuePath } from '../json-path.ts';
import { storedJsonLimits, storedJsonProblem } from '../stored-json.ts';
import { decodeFormats } from './decode-formats.ts';

export { headerValue, parsePath, parseValuePath, type ValuePath, valueAt } from '../json-path.ts';

export const columnTypes = ['string', 'long', 'double', 'boolean', 'timestamp'] as const;

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
const jsonValue: z.ZodType<JsonValue> = z
  .lazy(() =>
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
  )
  .meta({ id: 'JsonValue', description: 'Any JSON value' });

/** A definition's bounds, in bytes of its JSON (UTF-8): no real filter or definition comes near them. */
export const definitionLimits = {
  maxWhereValueBytes: 4 * 1024,
  maxDefinitionBytes: 64 * 1024,
};

const path = valuePath;

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
    .meta({
      description: `Keeps the rows whose value at \`path\` equals \`equals\` (at most ${definitionLimits.maxWhereValueBytes.toLocaleString('en')} bytes of JSON)`,
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

/**
 * `shape`, as a caller gives it: its `where` value and the whole definition within definitionLimits,
 * checked before the shape so that a value nested far too deep never reaches the recursive schema.
 * Definitions read back from the table go through the shape alone.
 */
function withinLimits<T extends z.ZodType>(shape: T) {
  return z.preprocess((value, context) => {
    const where = (value as { where?: unknown } | null)?.where;
    if (typeof where === 'object' && where !== null && 'equals' in where) {
      const problem = storedJsonProblem(where.equals, definitionLimits.maxWhereValueBytes);
      if (problem) {
        context.addIssue({ code: 'custom', message: problem, path: ['where', 'equals'], input: where.equals });
        return value;
      }
    }
    // The `where` value sits two levels into the definition.
    const problem = storedJsonProblem(value, definitionLimits.maxDefinitionBytes, storedJsonLimits.maxDepth + 2);
    if (problem) context.addIssue({ code: 'custom', message: `The definition: ${problem}`, input: value });
    return value;
  }, shape);
}

export const querySpecificationInput = withinLimits(querySpecification);
export const pipelineDefinitionInput = withinLimits(pipelineDefinition);

export type QuerySpecification = z.infer<typeof querySpecification>;
export type PipelineDefinition = z.infer<typeof pipelineDefinition>;
export type ColumnDefinition = z.infer<typeof columnDefinition>;
