/**
 * Local mode runs every function in one process, several invocations at once. Each invocation's log
 * lines must carry its own function and keys, not those of whichever invocation started last.
 */
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const saved = { ...process.env };
beforeAll(() => {
  // As the local runtime declares its process (local/runtime.ts).
  process.env.AWS_LAMBDA_MAX_CONCURRENCY = '1000';
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});
afterAll(() => {
  process.env = saved;
});

function context(functionName: string, requestId: string): Context {
  return {
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

describe('log context per invocation', () => {
  it('keeps each of two overlapping invocations its own function name, request id and keys', async () => {
    const { functionEdge } = await import('#shared/observability/invocation.ts');
    const { logger } = await import('#shared/observability/logger.ts');
    const lines: Record<string, unknown>[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      return true;
    });
    const gate = () => {
      let resolve = () => {};
      const promise = new Promise<void>((done) => {
        resolve = done;
      });
      return { promise, resolve };
    };
    const gates = { writer: gate(), sweeper: gate() };
    const handler = functionEdge(async (event: { name: 'writer' | 'sweeper' }) => {
      logger.appendKeys({ step: event.name });
      await gates[event.name].promise;
      logger.info('working');
    });
    try {
      // The writer starts first and finishes last: the sweeper's context is set in between.
      const writer = handler({ name: 'writer' }, context('ingest-write-batch', 'req-writer'));
      const sweeper = handler({ name: 'sweeper' }, context('jobs-sweep', 'req-sweeper'));
      gates.sweeper.resolve();
      await sweeper;
      gates.writer.resolve();
      await writer;
    } finally {
      write.mockRestore();
    }
    const working = lines
      .filter((line) => line.message === 'working')
      .map((line) => [line.step, line.function_name, line.function_request_id]);
    expect(working).toEqual([
      ['sweeper', 'jobs-sweep', 'req-sweeper'],
      ['writer', 'ingest-write-batch', 'req-writer'],
    ]);
  });
});

describe('work an invocation does last', () => {
  it("runs after the invocation's deferred work, however long that takes, and before it answers", async () => {
    const { beforeAnswering } = await import('#shared/observability/invocation.ts');
    const { batchHandler } = await import('#shared/queue-handler.ts');
    const order: string[] = [];
    let slow = false;
    // Deferred work such as a counter write to a slow table: it ends after the handler's body.
    beforeAnswering(async () => {
      if (!slow) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
      order.push('deferred work');
    });
    const handler = batchHandler(async (_event, _context, lastly) => {
      slow = true;
      lastly(async () => void order.push('last'));
      order.push('body');
      return { batchItemFailures: [] };
    });
    const answer = await handler({ Records: [] }, context('ingest-write-batch', 'req-last'));
    order.push('answered');
    expect({ answer, order }).toEqual({
      answer: { batchItemFailures: [] },
      order: ['body', 'deferred work', 'last', 'answered'],
    });
  });
});

describe('deferred work at the end of an invocation’s time', () => {
  it('is left to go on when it would run the invocation past its timeout: the invocation answers, its last work done', async () => {
    const { beforeAnswering } = await import('#shared/observability/invocation.ts');
    const { batchHandler } = await import('#shared/queue-handler.ts');
    const order: string[] = [];
    let stalled = false;
    // A counter write to a table that does not answer.
    beforeAnswering(() => (stalled ? new Promise<void>(() => undefined) : Promise.resolve()));
    vi.useFakeTimers();
    try {
      const handler = batchHandler(async (_event, _context, lastly) => {
        stalled = true;
        lastly(async () => void order.push('last'));
        order.push('body');
        return { batchItemFailures: [] };
      });
      const ending = { ...context('ingest-write-batch', 'req-stalled'), getRemainingTimeInMillis: () => 1000 };
      let answer: unknown = 'pending';
      void handler({ Records: [] }, ending).then((answered) => {
        answer = answered;
        order.push('answered');
      });
      await vi.advanceTimersByTimeAsync(700);
      expect(answer).toBe('pending');
      await vi.advanceTimersByTimeAsync(100);
      expect({ answer, order }).toEqual({ answer: { batchItemFailures: [] }, order: ['body', 'last', 'answered'] });
    } finally {
      stalled = false;
      vi.useRealTimers();
    }
  });
});

describe('deferred work past the time an edge lets its answer wait', () => {
  it('is left to go on after that time, however much of the invocation’s time is left', async () => {
    const { beforeAnswering, functionEdge } = await import('#shared/observability/invocation.ts');
    let stalled = false;
    // A counter write to a table that does not answer.
    beforeAnswering(() => (stalled ? new Promise<void>(() => undefined) : Promise.resolve()));
    vi.useFakeTimers();
    try {
      const handler = functionEdge(
        async () => {
          stalled = true;
          return 'accepted';
        },
        { handlerKeepsTime: true, deferredWithinMs: 1_000 },
      );
      let answer: unknown = 'pending';
      // 10 s left: by the invocation's time alone the answer would wait 9.75 s.
      void handler({}, context('ingest', 'req-bounded')).then((answered) => {
        answer = answered;
      });
      await vi.advanceTimersByTimeAsync(900);
      expect(answer).toBe('pending');
      await vi.advanceTimersByTimeAsync(200);
      expect(answer).toBe('accepted');
    } finally {
      stalled = false;
      vi.useRealTimers();
    }
  });
});

describe('answers cut short in a spell of slow deferred work', () => {
  it('are logged at the first and at the end of the spell, with how many, not once each', async () => {
    const { beforeAnswering, functionEdge } = await import('#shared/observability/invocation.ts');
    let stalled = false;
    beforeAnswering(() => (stalled ? new Promise<void>(() => undefined) : Promise.resolve()));
    const handler = functionEdge(async () => 'accepted', { handlerKeepsTime: true, deferredWithinMs: 1_000 });
    const lines: Record<string, unknown>[] = [];
    vi.useFakeTimers();
    // The logger writes its warnings to stderr.
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      return true;
    });
    /**
     * Invokes and lets the fake clock run `ms`: the answer waits at most 1 s for the deferred work,
     * which is in time otherwise (an earlier test's takes 50 ms).
     */
    const invoke = async (id: string, ms: number) => {
      const answered = handler({}, context('ingest', id));
      await vi.advanceTimersByTimeAsync(ms);
      expect(await answered).toBe('accepted');
    };
    try {
      // One in time first: a spell an earlier test left ends here.
      await invoke('req-before', 100);
      lines.length = 0;
      stalled = true;
      for (const id of ['req-1', 'req-2', 'req-3']) await invoke(id, 1_000);
      stalled = false;
      await invoke('req-after', 100);
      await invoke('req-later', 100);
      expect(
        lines.map(({ message, function_request_id, answers_cut_short, seconds }) => ({
          message,
          function_request_id,
          answers_cut_short,
          seconds,
        })),
      ).toEqual([
        {
          message:
            'Deferred counter writes outlasted the time the answer waits for them; what they have not written is kept for the next write (logged again when they keep up)',
          function_request_id: 'req-1',
          answers_cut_short: undefined,
          seconds: undefined,
        },
        {
          message: 'Deferred counter writes keep up again',
          function_request_id: 'req-after',
          answers_cut_short: 3,
          // From the first cut (1 s into req-1) to req-after's write, 50 ms past the third cut.
          seconds: 2,
        },
      ]);
    } finally {
      write.mockRestore();
      stalled = false;
      vi.useRealTimers();
    }
  });
});
