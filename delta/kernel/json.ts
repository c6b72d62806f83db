/**
 * JSON the log holds, read into checked shapes: commit lines, statistics, `_last_checkpoint`, the
 * schema and metadata domains' configurations. Another writer's JSON may carry more than the
 * protocol names, or less than it should: what a reader needs is checked, the rest left as it came.
 */
import * as z from 'zod';

/** A JSON object, its fields unknown. */
export const jsonObject = z.record(z.string(), z.unknown());

/** The value of `text` read as `schema` says; null when it is not JSON or not of that shape. */
export function readJson<T>(text: string, schema: z.ZodType<T>): T | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/**
 * The value of `text` read as `schema` says; throws (naming `what`) when it is not JSON or not of that shape. The
 * error never quotes the text (JSON.parse's own message does): it is whatever the store served.
 */
export function parseJson<T>(text: string, schema: z.ZodType<T>, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SyntaxError(`${what} is not JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new SyntaxError(`${what} is not of the shape the Delta protocol gives it`);
  return parsed.data;
}

/** A version as `_last_checkpoint` gives it: a safe integer, written as a number or as text. */
export const versionNumber = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^\d{1,16}$/)
      .transform(Number),
  ])
  .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
