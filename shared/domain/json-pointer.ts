/** RFC 6901 JSON pointers (`/a/0/b`, `~1` for `/`, `~0` for `~`) into a parsed JSON value. */
export function atPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) return undefined;
  let value: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      value = value[Number(token)];
    } else if (value !== null && typeof value === 'object' && Object.hasOwn(value, token)) {
      value = (value as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return value;
}

/**
 * A pointer's target as text: a string as is, a number in JSON form; anything else is absent. So is
 * an integer past 2^53: JSON.parse has rounded it (12345678901234567891 reads as …7000), and the
 * text of two such ids (an event id used as a deduplication key) would be the same.
 */
export function textAtPointer(document: unknown, pointer: string): string | undefined {
  const value = atPointer(document, pointer);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

/** A pointer is empty or starts with `/`, and escapes `~` only as `~0` or `~1`. */
export const jsonPointerPattern = /^(\/([^~/]|~[01])*)*$/;
