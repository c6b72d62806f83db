/**
 * The message ids of each table's recent versions, kept by a warm writer (15 minutes of versions,
 * at most a million ids per table), so that the exactly-once check reads only the versions
 * committed since its last look. A batch reaching back further (a redrive) makes it read older
 * versions page by page, newest first, down to the batch's `since`, without keeping them.
 * The pages come from the coordinator (DynamoDB items I#<version>, or an in-memory stand-in).
 */

export interface IdsPage {
  versions: { version: number; claimedAt: number; ids: string[] }[];
  /** Where the next page starts; undefined when there is none. */
  next: unknown;
}

/** Versions above `above` (oldest first) or below `below` (newest first, or all newest first when neither). */
export type IdsPageReader = (
  tableId: string,
  range: { above?: number; below?: number },
  newestFirst: boolean,
  start: unknown,
) => Promise<IdsPage>;

const cacheWindowMs = 15 * 60_000;
const maxCachedIds = 1_000_000;
const maxTables = 64;

/** The ids of a contiguous run of versions of one table: [low, high]. */
class Window {
  private readonly versions = new Map<number, { claimedAt: number; ids: string[] }>();
  private readonly index = new Map<string, number>();
  low = Number.POSITIVE_INFINITY;
  high = -1;
  /** Nothing exists below `low` (the table's first versions, or expired ones). */
  bottom = false;

  get empty(): boolean {
    return this.versions.size === 0;
  }

  claimedAt(version: number): number | undefined {
    return this.versions.get(version)?.claimedAt;
  }

  add(version: number, claimedAt: number, ids: string[]): void {
    if (this.versions.has(version)) return;
    this.versions.set(version, { claimedAt, ids });
    for (const id of ids) this.index.set(id, version);
    this.low = Math.min(this.low, version);
    this.high = Math.max(this.high, version);
  }

  has(id: string): boolean {
    return this.index.has(id);
  }

  /** Forgets the oldest versions: those claimed before `before`, and more while over `maxIds`; never the newest. */
  evict(before: number, maxIds: number): void {
    for (const version of [...this.versions.keys()].sort((a, b) => a - b)) {
      const held = this.versions.get(version);
      if (!held || version === this.high) break;
      if (held.claimedAt >= before && this.index.size <= maxIds) break;
      for (const id of held.ids) if (this.index.get(id) === version) this.index.delete(id);
      this.versions.delete(version);
      this.low = version + 1;
      this.bottom = false;
    }
  }
}

export class MessageIdWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly readPage: IdsPageReader,
    private readonly now: () => number = Date.now,
  ) {}

  forget(tableId: string): void {
    this.windows.delete(tableId);
  }

  private windowOf(tableId: string, keep: number): Window {
    let window = this.windows.get(tableId);
    // A window whose newest version is older than what we keep is stale: start afresh.
    if (window && !window.empty && (window.claimedAt(window.high) ?? 0) < keep) window = undefined;
    if (!window) {
      window = new Window();
      this.windows.set(tableId, window);
      while (this.windows.size > maxTables) this.windows.delete(this.windows.keys().next().value as string);
    }
    return window;
  }

  /** Which of `messageIds` the versions claimed at or after `since` hold (up to the newest version). */
  async written(tableId: string, messageIds: string[], since: number): Promise<Set<string>> {
    const wanted = new Set(messageIds);
    const found = new Set<string>();
    const keep = this.now() - cacheWindowMs;
    const window = this.windowOf(tableId, keep);

    if (!window.empty) {
      // Versions newer than the window, oldest first.
      let start: unknown;
      do {
        const page = await this.readPage(tableId, { above: window.high }, false, start);
        for (const held of page.versions) window.add(held.version, held.claimedAt, held.ids);
        start = page.next;
      } while (start !== undefined);
    }

    // Newest first from the top (empty window) or from below the window, down to `since`:
    // kept while recent and contiguous, else only checked.
    const reachesBack = window.empty || (!window.bottom && (window.claimedAt(window.low) ?? 0) >= since);
    if (reachesBack) {
      const below = window.empty ? undefined : window.low;
      let contiguous = true;
      let start: unknown;
      do {
        const page = await this.readPage(tableId, below === undefined ? {} : { below }, true, start);
        for (const held of page.versions) {
          // Pages run down the versions in order, so each one is the next below the window.
          if (contiguous && held.claimedAt >= keep) {
            window.add(held.version, held.claimedAt, held.ids);
          } else {
            contiguous = false;
            for (const id of held.ids) if (wanted.has(id)) found.add(id);
          }
        }
        start = page.next;
        if (page.versions.some((held) => held.claimedAt < since)) break;
        if (start === undefined && contiguous && !window.empty) window.bottom = true;
      } while (start !== undefined);
    }

    for (const id of wanted) if (window.has(id)) found.add(id);
    window.evict(keep, maxCachedIds);
    return found;
  }
}
