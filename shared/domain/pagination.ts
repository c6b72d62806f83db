export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}

export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return { items: page.items.map(map), nextCursor: page.nextCursor };
}

/**
 * Bytes of items a page of a list holds at most, as JSON: the answer travels as an escaped string in
 * Lambda's response (6 MB at most), where a quote or backslash takes twice its bytes.
 */
export const pageBytes = 1024 * 1024;

/**
 * The first items, at most `limit` of them and `maxBytes` of JSON in all (always the first one, which
 * a list bounds by its own limits): a list of large items answers fewer, with its cursor.
 */
export function withinBytes<T>(items: readonly T[], limit: number, maxBytes = pageBytes): T[] {
  const taken: T[] = [];
  let bytes = 0;
  for (const item of items.slice(0, limit)) {
    bytes += Buffer.byteLength(JSON.stringify(item));
    if (taken.length > 0 && bytes > maxBytes) break;
    taken.push(item);
  }
  return taken;
}
