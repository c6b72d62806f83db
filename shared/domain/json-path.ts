/**
 * The path language of pipeline columns and of the Events view's JSON filter (`$.a.b`, `$["a b"]`,
 * `$.list[0]`), apart from the definitions and decoders that use it: a reader of one JSON value
 * needs none of them (nor the XML parser they bring). Pipeline paths may also read a request header
 * the envelope kept: `$headers["x-github-event"]` (also `$headers['…']` or `$headers.x-github-event`),
 * its name case-insensitive.
 */
import * as z from 'zod';

/**
 * The inside of a quoted step: a JSON string's body, which JSON.parse reads back (no raw control characters; only
 * JSON's escapes). A looser one (a backslash before any character) passed `$["\q"]` to JSON.parse, which threw.
 */
const quoted = String.raw`(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*`;

const pathPattern = new RegExp(String.raw`^\$((\.[A-Za-z_][A-Za-z0-9_-]*)|(\["${quoted}"\])|(\[\d+\]))*$`);

/** A path as requests and definitions give it: `$` then `.key`, `["key"]` or `[index]` steps. */
export const jsonPath = z
  .string()
  .max(512)
  .regex(pathPattern, 'A path is $ followed by .key, ["key"] or [index] steps');

export type Step = string | number;

export function parsePath(path: string): Step[] {
  const steps: Step[] = [];
  const pattern = new RegExp(String.raw`\.([A-Za-z_][A-Za-z0-9_-]*)|\["(${quoted})"\]|\[(\d+)\]`, 'g');
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

const headerPathPattern = new RegExp(
  String.raw`^\$headers(?:\.([A-Za-z_][A-Za-z0-9_-]*)|\["(${quoted})"\]|\['([^'\\]*)'\])$`,
);

/** A pipeline's path: into the decoded body (jsonPath), or to one of the headers the envelope kept. */
export const valuePath = z
  .string()
  .max(512)
  .regex(
    new RegExp(`(?:${pathPattern.source})|(?:${headerPathPattern.source})`),
    'A path is $ followed by .key, ["key"] or [index] steps, or $headers["name"]',
  );

/** Where a pipeline's path reads: a header (its name lowercased), or steps into the body's document. */
export type ValuePath = { header: string } | { steps: Step[] };

export function parseValuePath(path: string): ValuePath {
  const header = headerPathPattern.exec(path);
  if (!header) return { steps: parsePath(path) };
  const name = header[1] ?? (header[2] === undefined ? header[3] : (JSON.parse(`"${header[2]}"`) as string));
  return { header: (name ?? '').toLowerCase() };
}

/** A kept header's value, its name already lowercase; undefined when the envelope has none of that name (or no headers). */
export function headerValue(
  headers: Readonly<Record<string, string>> | null | undefined,
  name: string,
): string | undefined {
  return headers && Object.hasOwn(headers, name) ? headers[name] : undefined;
}
