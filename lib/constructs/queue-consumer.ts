import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type ConsumerName, type ConsumerSpec, consumers, eventSourceSettings, queues } from '#shared/topology.ts';
import { consumerFunction } from '../functions.ts';
import { type FunctionContext, ServiceFunction } from './service-function.ts';

export interface QueueConsumerProps {
  consumer: ConsumerName;
  queue: IQueue;
  context: FunctionContext;
  /** The deployment's batching window for this consumer (default: the topology's). */
  batchingWindowSeconds?: number;
  /** The deployment's concurrency reserved for this consumer (default: the topology's; 0: none). */
  reservedConcurrency?: number;
  /** The deployment's maximum concurrency of this consumer's event source (default: the topology's). */
  maxConcurrency?: number;
}

/**
 * A queue consumer of the topology (shared/topology.ts): its function, and the event source mapping
 * that feeds it its queue in batches Lambda accepts, with at most `maxConcurrency` invocations at
 * once, reporting failed records one by one.
 */
export class QueueConsumer extends Construct {
  readonly function: ServiceFunction;
  readonly queue: IQueue;

  constructor(scope: Construct, id: string, props: QueueConsumerProps) {
    super(scope, id);
    const declared = consumers[props.consumer];
    const reservedConcurrency =
      props.reservedConcurrency === undefined
        ? declared.function.reservedConcurrency
        : props.reservedConcurrency || undefined;
    const spec = {
      ...declared,
      maxConcurrency: props.maxConcurrency ?? declared.maxConcurrency,
      function: { ...declared.function, reservedConcurrency },
    };
    this.queue = props.queue;
    const declaration = consumerFunction(props.consumer);
    this.function = new ServiceFunction(
      this,
      'Function',
      { ...declaration, settings: { ...declaration.settings, reservedConcurrency } },
      props.context,
    );
    const source = eventSourceSettings(spec, props.batchingWindowSeconds ?? spec.maxBatchingWindowSeconds);
    checkedVisibilityTimeout(props.consumer, spec, source.windowSeconds);
    this.function.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: source.batchSize,
        maxBatchingWindow: Duration.seconds(source.windowSeconds),
        maxConcurrency: checkedMaxConcurrency(props.consumer, spec),
        reportBatchItemFailures: true,
      }),
    );
  }
}

/**
 * A queue's visibility timeout must be at least six times its consumer's timeout plus the batching
 * window, as Lambda's guidance for SQS event sources asks: shorter, a batch still being handled
 * (or still being gathered) becomes visible again and is handed out twice, and its messages count a
 * receive towards the dead-letter queue each time. Checked at synth: the deploy stops instead.
 */
export function checkedVisibilityTimeout(
  name: string,
  spec: Pick<ConsumerSpec, 'queue' | 'function'>,
  windowSeconds: number,
): void {
  const needed = 6 * spec.function.timeoutSeconds + windowSeconds;
  const visibility = queues[spec.queue].visibilityTimeoutSeconds;
  if (visibility < needed)
    throw new Error(
      `${name}: the ${spec.queue} queue's visibility timeout ${visibility} s is below six times the function's timeout plus its batching window (${needed} s)`,
    );
}

/**
 * Lambda's rules for a consumer's maximum concurrency: 2 to 1,000, and no more than the function's
 * reserved concurrency, if it has one (batches handed to a function at its reserved limit are
 * throttled, and their messages count a receive each time until they go to the dead-letter queue).
 */
export function checkedMaxConcurrency(name: string, spec: Pick<ConsumerSpec, 'maxConcurrency' | 'function'>): number {
  const { maxConcurrency } = spec;
  const reserved = spec.function.reservedConcurrency;
  if (!(Number.isInteger(maxConcurrency) && maxConcurrency >= 2 && maxConcurrency <= 1000))
    throw new Error(`${name}: maxConcurrency must be a whole number from 2 to 1000, got ${maxConcurrency}`);
  if (reserved !== undefined && maxConcurrency > reserved)
    throw new Error(
      `${name}: maxConcurrency ${maxConcurrency} is above the function's reserved concurrency ${reserved}; Lambda would throttle batches it was handed`,
    );
  return maxConcurrency;
}
