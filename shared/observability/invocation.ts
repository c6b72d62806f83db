/**
 * What every function's edge does around an invocation, whatever invoked it (API Gateway, a queue,
 * a schedule, CloudFormation):
 *  - the logger carries the invocation's context (function, request id, cold start) and the keys
 *    the handler appends, and they are the invocation's own: where several invocations run at once
 *    in one process (local mode declares itself a multi-concurrent Lambda environment with
 *    AWS_LAMBDA_MAX_CONCURRENCY, as Lambda Managed Instances do), each runs in its own invocation
 *    store, which Powertools keeps the logger's state in;
 *  - one error policy: an error that escapes the handler is logged once, with that context, and fails
 *    the invocation (Lambda then retries or reports it);
 *  - work deferred to the end of an invocation (counter writes) is done before it answers, within its time;
 *  - when the bundle was built with SDK tracing, the tracer is ready before the first invocation.
 */
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { settledBy } from '../domain/at-most.ts';
import { logger } from './logger.ts';
import { tracingReady } from './tracing.ts';

type Settle = () => Promise<void>;
const settlers: Settle[] = [];

/** Registers work to finish before each invocation answers (it must not throw). */
export function beforeAnswering(settle: Settle): void {
  settlers.push(settle);
}

async function settle(): Promise<void> {
  await Promise.all(settlers.map((work) => work()));
}

/** Work an invocation does after its deferred work, by the invocation's context. */
const lastWork = new WeakMap<Context, (() => Promise<void>)[]>();

/**
 * Registers work the invocation does last, after its deferred work (which may take long: counter
 * writes to a slow table), just before it answers (it must not throw).
 */
export function lastly(context: Context, work: () => Promise<void>): void {
  const registered = lastWork.get(context);
  if (registered) registered.push(work);
  else lastWork.set(context, [work]);
}

/** What an invocation keeps of its time to answer once its deferred work is cut short. */
const answerReserveMs = 250;

/**
 * The answers cut short since the deferred work last finished in time (a spell of a slow table),
 * and when the first was: a spell is logged at its first cut and at its end, with how many answers
 * it cut and for how long, rather than once per answer (a burst of new sources cut 1,600).
 */
let spell: { answers: number; since: number } | undefined;

/**
 * The deferred work first, but no longer than the invocation's time allows (less the reserve to
 * answer), nor than `withinMs` where the edge sets it: counter writes to a slow table must not run
 * an invocation past its timeout, which fails it (a request answered with the gateway's bare 500, a
 * batch received again) and discards its environment with the counts it holds. Cut short, the
 * writes go on and what they have not written stays pending for the next write, as a failed write
 * does (totals are written, so a write that lands late counts nothing twice).
 */
async function settleThenLast(context: Context, withinMs: number): Promise<void> {
  const timeLeft =
    typeof context.getRemainingTimeInMillis === 'function'
      ? context.getRemainingTimeInMillis() - answerReserveMs
      : Number.POSITIVE_INFINITY;
  const answerBy = Date.now() + Math.min(timeLeft, withinMs);
  const inTime = await settledBy(
    settle().then(() => true),
    answerBy,
    false,
  );
  if (!inTime) {
    if (spell) spell.answers += 1;
    else {
      spell = { answers: 1, since: Date.now() };
      logger.warn(
        withinMs < timeLeft
          ? 'Deferred counter writes outlasted the time the answer waits for them; what they have not written is kept for the next write (logged again when they keep up)'
          : 'Deferred counter writes outlasted the invocation’s time; what they have not written is kept for the next write (logged again when they keep up)',
      );
    }
  } else if (spell) {
    logger.warn('Deferred counter writes keep up again', {
      answers_cut_short: spell.answers,
      seconds: Math.round((Date.now() - spell.since) / 1000),
    });
    spell = undefined;
  }
  for (const work of lastWork.get(context) ?? []) await work();
  lastWork.delete(context);
}

/** The last middleware an edge adds before its own: deferred work done, escaped errors logged. */
const settling = (withinMs: number): MiddlewareObj => ({
  after: (request) => settleThenLast(request.context, withinMs),
  onError: async (request) => {
    await settleThenLast(request.context, withinMs);
    if (request.response === undefined) logger.error('Invocation failed', { error: request.error as Error });
  },
});

export type LambdaHandler<E, R> = (event: E, context: Context) => Promise<R>;

let store: Promise<InvokeStoreBase> | undefined;
const concurrent = () => Boolean(process.env.AWS_LAMBDA_MAX_CONCURRENCY);

/**
 * Runs work that belongs to no invocation (a timer's) in a context of its own, where invocations
 * have one each: the logger keeps its state per context there, and has none outside.
 */
export async function outsideInvocations<T>(work: () => Promise<T>): Promise<T> {
  if (!concurrent()) return work();
  store ??= InvokeStore.getInstanceAsync();
  return (await store).run({}, work);
}

export interface EdgeOptions<E, R> {
  /** Runs after the logger context is set and before the handler (the HTTP edge adds its own). */
  middleware?: MiddlewareObj<E, R>;
  /**
   * The handler answers before its time is up by itself, and the edge does not race it. By default
   * the edge fails an invocation a moment before the function's timeout (middy's early timeout), so
   * that its logs say why; a handler whose answer must follow its outcome (the ingest handler: an
   * error answered while its envelope was being queued would have its sender store it twice)
   * keeps its own time.
   */
  handlerKeepsTime?: boolean;
  /**
   * The longest the answer waits for the invocation's deferred work (counter writes) after the
   * handler's own answer; by default all the invocation's time allows. The ingest edge's senders
   * time out within seconds, and its counts do not need the wait (see functions/ingest/accept.ts).
   */
  deferredWithinMs?: number;
}

/**
 * Wraps a middy handler with the invocation context. Errors its middleware leaves unhandled follow
 * the policy above.
 */
export function functionEdge<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  options: EdgeOptions<E, R> = {},
): LambdaHandler<E, R> {
  let chain = middy<E, R>({ timeoutEarlyInMillis: options.handlerKeepsTime ? 0 : 5 })
    .use(injectLambdaContext(logger, { resetKeys: true }) as MiddlewareObj<E, R>)
    .use(settling(options.deferredWithinMs ?? Number.POSITIVE_INFINITY) as MiddlewareObj<E, R>);
  if (options.middleware) chain = chain.use(options.middleware);
  const wrapped = chain.handler(handler) as unknown as LambdaHandler<E, R>;
  const ready = tracingReady();
  if (!ready && !concurrent()) return wrapped;
  return async (event, context) => {
    await ready;
    if (!concurrent()) return wrapped(event, context);
    store ??= InvokeStore.getInstanceAsync();
    const invocations = await store;
    if (invocations.hasContext()) return wrapped(event, context);
    return invocations.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, () =>
      wrapped(event, context),
    );
  };
}
