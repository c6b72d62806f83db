import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueName } from '#shared/topology.ts';
import { QueueConsumer } from './queue-consumer.ts';
import type { FunctionContext } from './service-function.ts';

export interface IngestPipelineProps {
  /** The stateful stack's queues (shared/topology.ts). */
  queues: Record<QueueName, Queue>;
  context: FunctionContext;
  /** How long the writer gathers envelopes before it stages them (default: the topology's). */
  writerBatchingWindowSeconds?: number;
  /** Concurrency reserved for the writer and for the committer, each (default: the topology's; 0: none). */
  reservedConcurrency?: number;
  /** The committer's event source's maximum concurrency (default: the topology's). */
  committerConcurrency?: number;
}

/**
 * What happens to a webhook after the ingest route queued it: the batch writer stages the ingest
 * queue's envelopes (and commits the tables that want them at once), the table committer commits
 * each staged table when its commit trigger says it is due, and the dead-letter recorder records
 * every envelope that exhausted its deliveries as a failed delivery of its connection.
 */
export class IngestPipeline extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly writer: QueueConsumer;
  readonly committer: QueueConsumer;
  readonly deadLetterRecorder: QueueConsumer;

  constructor(scope: Construct, id: string, props: IngestPipelineProps) {
    super(scope, id);
    this.queue = props.queues.ingest;
    this.deadLetterQueue = props.queues.ingestDeadLetter;
    this.writer = new QueueConsumer(this, 'Writer', {
      consumer: 'ingest-writer',
      queue: this.queue,
      context: props.context,
      batchingWindowSeconds: props.writerBatchingWindowSeconds,
      reservedConcurrency: props.reservedConcurrency,
    });
    this.committer = new QueueConsumer(this, 'Committer', {
      consumer: 'table-committer',
      queue: props.queues.commits,
      context: props.context,
      reservedConcurrency: props.reservedConcurrency,
      maxConcurrency: props.committerConcurrency,
    });
    this.deadLetterRecorder = new QueueConsumer(this, 'DeadLetterRecorder', {
      consumer: 'dead-letter-recorder',
      queue: this.deadLetterQueue,
      context: props.context,
    });
  }
}
