import { describe, expect, it } from 'vitest';
import { withTimeout } from '../../local/lambda-context.ts';

describe("a local invocation's time limit", () => {
  it("answers the work's value or error when it settles in time", async () => {
    expect(await withTimeout(Promise.resolve(42), 5, 'ingest')).toBe(42);
    await expect(withTimeout(Promise.reject(new Error('refused')), 5, 'ingest')).rejects.toThrow('refused');
  });

  it('fails an invocation that has not settled in time, naming it', async () => {
    const never = new Promise<number>(() => undefined);
    await expect(withTimeout(never, 0.05, 'POST /api/ingest/{source_id}')).rejects.toThrow(
      'POST /api/ingest/{source_id} timed out after 0.05 s',
    );
  });
});
