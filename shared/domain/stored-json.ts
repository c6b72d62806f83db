/**
 * JSON values a caller gives that are kept as they are on an item of the table (a pipeline's `where`
 * value, a run's parameters): bounded so that every one DynamoDB can store. DynamoDB refuses an item
 * over 400 KB, nesting beyond 32 levels, a map key that is empty, and numbers it cannot hold (the
 * document client refuses integers past 2^53 − 1, DynamoDB magnitudes under 1e-130). Such a request
 * is a 400 VALIDATION_ERROR that changes nothing, never a failed write.
 */
import * as z from 'zod';

export const storedJsonLimits = {
  /** Arrays and objects inside one another; far more than any real value, far fewer than DynamoDB's 32. */
  maxDepth: 16,
  smallestMagnitude: 1e-130,
};

/**
 * What makes `value` unstorable within `maxBytes` bytes of JSON (UTF-8), or null when it is storable.
 * `maxDepth` is for a value that holds others (a whole definition, whose `where` value sits two levels in).
 */
export function storedJsonProblem(
  value: unknown,
  maxBytes: number,
  maxDepth = storedJsonLimits.maxDepth,
): string | null {
  const structure = structureProblem(value, 0, maxDepth);
  if (structure) return structure;
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  return bytes > maxBytes
    ? `At most ${maxBytes.toLocaleString('en')} bytes of JSON (this is ${bytes.toLocaleString('en')})`
    : null;
}

/** Walks at most `maxDepth` levels down, so a value nested ten thousand deep is refused without deep recursion. */
function structureProblem(value: unknown, depth: number, maxDepth: number): string | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
      return `Numbers are at most ${Number.MAX_SAFE_INTEGER.toLocaleString('en')} in magnitude; give a larger one as a string`;
    if (value !== 0 && Math.abs(value) < storedJsonLimits.smallestMagnitude)
      return 'Numbers other than 0 are at least 1e-130 in magnitude; give a smaller one as a string';
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= maxDepth) return `Arrays and objects nest at most ${maxDepth} levels deep`;
  const entries = Array.isArray(value) ? value.map((item) => ['0', item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    if (key === '') return 'Object keys are not empty';
    const problem = structureProblem(item, depth + 1, maxDepth);
    if (problem) return problem;
  }
  return null;
}

/**
 * `schema`, for a JSON value of at most `maxBytes` bytes: the bounds are checked first, so a value
 * far too deep never reaches a recursive schema.
 */
export function storedJson<T extends z.ZodType>(schema: T, maxBytes: number) {
  return z.preprocess((value, context) => {
    const problem = storedJsonProblem(value, maxBytes);
    if (problem) context.addIssue({ code: 'custom', message: problem, input: value });
    return value;
  }, schema);
}
