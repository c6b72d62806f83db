/**
 * Runs `work` on every item, at most `limit` at a time, and resolves once all have settled; an item
 * whose work rejects does not stop the others (the work handles its own failures; the first
 * rejection is passed on once every item has been tried).
 */
export async function forEachAtMost<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let firstError: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        firstError ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, lane));
  if (firstError) throw firstError.error;
}
