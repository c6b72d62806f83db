import { describe, expect, it } from 'vitest';
import { forEachAtMost } from '#shared/domain/at-most.ts';

describe('work on many items, a few at a time', () => {
  it('never has more than the limit under way, and does every item once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const items = Array.from({ length: 100 }, (_, index) => index);
    await forEachAtMost(items, 8, async (item) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, item % 3));
      done.push(item);
      running--;
    });
    expect(most).toBe(8);
    expect(done.sort((a, b) => a - b)).toEqual(items);
  });

  it('tries every item when some fail, then passes the first failure on', async () => {
    const tried: string[] = [];
    const run = forEachAtMost(['a', 'b', 'c', 'd'], 2, async (item) => {
      tried.push(item);
      if (item === 'b' || item === 'd') throw new Error(`failed ${item}`);
    });
    await expect(run).rejects.toThrow('failed b');
    expect(tried.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('does nothing for no items', async () => {
    await expect(forEachAtMost([], 8, async () => Promise.reject(new Error('never')))).resolves.toBeUndefined();
  });
});
