/**
 * What the library reads and writes a table through: its objects, by keys relative to the table's
 * root. The application supplies it (S3, a tenant's S3-compatible store, memory in tests); how a
 * commit becomes a version on top of it is the log store's (delta/log-store/).
 */

/** Objects under the table's root, by keys relative to it. */
export interface TableStorage {
  put(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<void>;
  /**
   * Writes the object only when no object has that key (If-None-Match: *): true when written, false
   * when one exists. Throws ConditionalWritesUnsupported when the store does not honour the condition.
   */
  putIfAbsent(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<boolean>;
  get(relativeKey: string): Promise<Buffer>;
  /** null when the object does not exist. */
  getIfExists(relativeKey: string): Promise<Buffer | null>;
  delete(relativeKeys: string[]): Promise<void>;
  /** Keys under a prefix in key order, after `startAfter` when given; `limit` stops early. */
  list(
    relativePrefix: string,
    options?: { startAfter?: string; limit?: number },
  ): Promise<{ key: string; size: number; lastModified: number }[]>;
}
