/**
 * A traffic chart that follows live figures asks nothing while its last read waits: polls of a slow
 * API would otherwise pile up behind the answer, each asking for the whole range again.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { trafficChart } from '../src/chart.ts';
import { standInDocument } from './stand-in-dom.ts';

beforeAll(() => {
  standInDocument();
  vi.stubGlobal('sessionStorage', { getItem: () => 'trb_key_test', setItem() {}, removeItem() {} });
});
afterAll(() => {
  vi.unstubAllGlobals();
});

describe("a traffic chart's polls", () => {
  it('ask nothing while a read waits, and ask again once it has failed', async () => {
    // Prepare: an API whose first answer hangs until the test lets it fail.
    let failFirst: (error: Error) => void = () => {};
    const asked: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn((path: string) => {
        asked.push(path.split('?')[0] as string);
        return asked.length === 1
          ? new Promise<Response>((_, reject) => {
              failFirst = reject;
            })
          : Promise.reject(new Error('unreachable'));
      }),
    );
    const chart = trafficChart('api/tenants/t1/stats/history', 'Traffic', new AbortController().signal);
    // Act: the first load, then three polls while it waits; then it fails, and a fourth poll.
    const first = chart.load();
    await Promise.all([chart.follow(), chart.follow(), chart.follow()]);
    const whileWaiting = asked.length;
    failFirst(new Error('unreachable'));
    await first;
    await chart.follow();
    // Assess
    expect({ whileWaiting, after: asked }).toEqual({
      whileWaiting: 1,
      after: ['api/tenants/t1/stats/history', 'api/tenants/t1/stats/history'],
    });
  });
});
