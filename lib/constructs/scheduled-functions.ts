import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { type ScheduleName, schedules } from '#shared/topology.ts';
import { scheduleFunction, scheduleNames } from '../functions.ts';
import { type FunctionContext, ServiceFunction } from './service-function.ts';

/**
 * Every schedule of the topology (shared/topology.ts): its function, run by an EventBridge rule every
 * `everyMinutes`. A run is never tried again, neither by EventBridge nor by Lambda (whose default for
 * an asynchronous invocation is two more tries, a minute and two later): the next run is its retry, and
 * a retry would run beside it, where each function's timeout is set to end a run before the next.
 */
export class ScheduledFunctions extends Construct {
  readonly functions = {} as Record<ScheduleName, ServiceFunction>;

  constructor(scope: Construct, id: string, context: FunctionContext) {
    super(scope, id);
    for (const name of scheduleNames) {
      const fn = new ServiceFunction(this, name, scheduleFunction(name), context);
      fn.configureAsyncInvoke({ retryAttempts: 0 });
      new Rule(this, `${name}-Rule`, {
        schedule: Schedule.rate(Duration.minutes(schedules[name].everyMinutes)),
        targets: [new LambdaFunction(fn, { retryAttempts: 0 })],
      });
      this.functions[name] = fn;
    }
  }
}
