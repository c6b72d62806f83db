import { describe, expect, it } from 'vitest';
import { ByteBudget, forEachAtMost } from '#shared/domain/at-most.ts';

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

describe('a budget of bytes held at once', () => {
  /** Work that holds its bytes until released, recording when it starts. */
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  /** Runs `run` once its bytes are taken, and gives them back when it ends, as a committer does. */
  const holding = async <T>(budget: ByteBudget, bytes: number, run: () => Promise<T>): Promise<T> => {
    const release = await budget.take(bytes);
    try {
      return await run();
    } finally {
      release();
    }
  };
  const work = (budget: ByteBudget, name: string, bytes: number) =>
    holding(budget, bytes, async () => {
      started.push(name);
      await new Promise<void>((resolve) => releases.set(name, resolve));
      return name;
    });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('runs work side by side while its bytes fit, and the rest in the order asked as bytes come free', async () => {
    started.length = 0;
    const budget = new ByteBudget(100);
    const runs = [work(budget, 'a', 60), work(budget, 'b', 60), work(budget, 'c', 30), work(budget, 'd', 10)];
    await settle();
    // b does not fit beside a; c and d would, but wait their turn behind b.
    expect(started).toEqual(['a']);
    releases.get('a')?.();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    for (const name of ['b', 'c', 'd']) releases.get(name)?.();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('runs work larger than the whole budget alone, and gives its bytes back when it fails', async () => {
    started.length = 0;
    const budget = new ByteBudget(100);
    const big = work(budget, 'big', 1_000);
    const failing = holding(budget, 50, async () => {
      started.push('failing');
      throw new Error('failed');
    });
    const small = work(budget, 'small', 60);
    await settle();
    expect(started).toEqual(['big']);
    releases.get('big')?.();
    await expect(failing).rejects.toThrow('failed');
    await settle();
    expect(started).toEqual(['big', 'failing', 'small']);
    releases.get('small')?.();
    expect([await big, await small]).toEqual(['big', 'small']);
  });
});
