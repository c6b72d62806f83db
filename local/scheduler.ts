/**
 * EventBridge schedules, locally: each scheduled function runs every `everyMinutes` (or every
 * LOCAL_SCHEDULE_SECONDS when set, so tests need not wait minutes), one run at a time. A schedule
 * that `runsAtStop` runs once more when a graceful stop stops it, with `detail: { stopping: true }`
 * (the table-commits schedule then commits everything staged).
 */
import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { lambdaContext, withTimeout } from './lambda-context.ts';

export type ScheduledHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface Schedule {
  /** Finishes the run under way; then, when `final` and the schedule runs at a stop, runs it once more. */
  stop(options?: { final?: boolean }): Promise<void>;
}

export function startSchedule(options: {
  name: string;
  handler: ScheduledHandler;
  intervalSeconds: number;
  /** The run's time limit, for a handler that does not keep it itself (a hosted function does). */
  timeoutSeconds?: number;
  runsAtStop?: boolean;
}): Schedule {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const run = (detail: Record<string, unknown>) => {
    const event: ScheduledEvent = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: new Date().toISOString(),
      region: 'us-east-1',
      resources: [`arn:aws:events:us-east-1:000000000000:rule/${options.name}`],
      detail,
    };
    const invocation = Promise.resolve(
      options.handler(event, lambdaContext(options.name, options.timeoutSeconds ?? 900)),
    );
    return (
      options.timeoutSeconds === undefined ? invocation : withTimeout(invocation, options.timeoutSeconds, options.name)
    ).catch((error: Error) => process.stderr.write(`schedule ${options.name}: ${error.message}\n`));
  };
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = run({}).finally(() => {
      busy = false;
    });
  }, options.intervalSeconds * 1000);
  return {
    async stop({ final = false } = {}) {
      clearInterval(timer);
      await running;
      if (final && options.runsAtStop) await run({ stopping: true });
    },
  };
}
