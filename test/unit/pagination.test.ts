import { describe, expect, it } from 'vitest';
import { withinBytes } from '#shared/domain/pagination.ts';

describe('a page cut by bytes', () => {
  // Each item is 10 bytes of JSON: {"n":"ab"} and so on.
  const items = ['ab', 'cd', 'ef', 'gh', 'ij'].map((n) => ({ n }));

  it('holds at most the limit of items, and at most the bytes given', () => {
    expect(withinBytes(items, 3, 1_000)).toEqual([{ n: 'ab' }, { n: 'cd' }, { n: 'ef' }]);
    expect(withinBytes(items, 5, 25)).toEqual([{ n: 'ab' }, { n: 'cd' }]);
    expect(withinBytes(items, 5, 30)).toEqual([{ n: 'ab' }, { n: 'cd' }, { n: 'ef' }]);
  });

  it('always holds the first item, however large, so that a cursor moves on', () => {
    expect(withinBytes([{ n: 'x'.repeat(100) }, { n: 'y' }], 10, 20)).toEqual([{ n: 'x'.repeat(100) }]);
    expect(withinBytes([], 10, 20)).toEqual([]);
  });

  it('counts bytes, not characters: a three-byte character counts three', () => {
    // {"n":"€€"} is 14 bytes, 10 characters.
    expect(withinBytes([{ n: '€€' }, { n: '€€' }], 5, 27)).toEqual([{ n: '€€' }]);
    expect(withinBytes([{ n: '€€' }, { n: '€€' }], 5, 28)).toEqual([{ n: '€€' }, { n: '€€' }]);
  });
});
