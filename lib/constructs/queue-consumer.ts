import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type ConsumerName, consumers, eventSourceSettings } from '#shared/topology.ts';
import { consumerFunction } from '../functions.ts';
import { type FunctionContext, ServiceFunction } from './service-function.ts';

export interface QueueConsumerProps {
  consumer: ConsumerName;
  queue: IQueue;
  context: FunctionContext;
  /** The deployment's batching window for this consumer (default: the topology's). */
  batchingWindowSeconds?: number;
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
    const spec = consumers[props.consumer];
    this.queue = props.queue;
    this.function = new ServiceFunction(this, 'Function', consumerFunction(props.consumer), props.context);
    const source = eventSourceSettings(spec, props.batchingWindowSeconds ?? spec.maxBatchingWindowSeconds);
    this.function.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: source.batchSize,
        maxBatchingWindow: Duration.seconds(source.windowSeconds),
        maxConcurrency: spec.maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
  }
}
