/**
 * What the library needs from the application: the objects under a table's root, by keys relative
 * to it (the same shape as the Delta library's TableStorage, so one adapter serves both).
 */
export interface IcebergStorage {
  put(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<void>;
  /**
   * Writes the object only when no object has that key: true when written, false when one exists.
   * May throw when the store does not honour the condition; the library then writes unconditionally.
   */
  putIfAbsent(relativeKey: string, body: Uint8Array | string, contentType: string): Promise<boolean>;
  /** null when the object does not exist. */
  getIfExists(relativeKey: string): Promise<Buffer | null>;
  delete(relativeKeys: string[]): Promise<void>;
  /** Keys under a prefix in key order; `lastModified` in milliseconds. */
  list(relativePrefix: string): Promise<{ key: string; size: number; lastModified: number }[]>;
}
