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

/**
 * At most `limit` bytes held at once by work that runs side by side (what an invocation's commits
 * hold in memory): `take` answers once its bytes fit beside what is held, in the order asked, and
 * alone when they are more than the whole limit.
 */
export class ByteBudget {
  private held = 0;
  private readonly queue: { bytes: number; admit: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** Takes `bytes` once they fit; the function returned gives them back, once. */
  async take(bytes: number): Promise<() => void> {
    const wanted = Math.min(Math.max(0, bytes), this.limit);
    if (this.queue.length > 0 || !this.fits(wanted))
      await new Promise<void>((admit) => this.queue.push({ bytes: wanted, admit }));
    else this.held += wanted;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.held -= wanted;
      this.admitWaiting();
    };
  }

  private fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= this.limit;
  }

  private admitWaiting(): void {
    while (this.queue.length > 0 && this.fits((this.queue[0] as { bytes: number }).bytes)) {
      const next = this.queue.shift() as { bytes: number; admit: () => void };
      this.held += next.bytes;
      next.admit();
    }
  }
}

/**
 * `work`'s outcome when it settles by `until` (ms since the epoch), else `late`: waiting for it
 * stops then, and what it still does after is its own (a rejection after is not left unhandled).
 */
export async function settledBy<T, L>(work: Promise<T>, until: number, late: L): Promise<T | L> {
  if (until === Number.POSITIVE_INFINITY) return work;
  work.catch(() => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lateness = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), Math.max(0, until - Date.now()));
  });
  try {
    return await Promise.race([work, lateness]);
  } finally {
    clearTimeout(timer);
  }
}
