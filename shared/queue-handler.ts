/**
 * The edges of the functions that no HTTP request invokes: queue consumers, schedules and the
 * deployment's custom resource. Each goes through the same edge as the API (shared/observability/
 * invocation.ts: logger context with cold start and request id, one error policy, deferred work
 * done before answering).
 *  - recordHandler: each SQS record parsed against its schema and processed on its own; a record that
 *    fails is reported as a batch item failure, so only it returns to the queue (and, on its fifth
 *    receive, moves to the dead-letter queue);
 *  - batchHandler: the whole SQS batch to one function that answers the failures itself (the batch
 *    writer, which commits records together);
 *  - scheduledHandler, customResourceHandler and secretRotationHandler: one event, one piece of work.
 */
import type {
  CloudFormationCustomResourceEvent,
  Context,
  ScheduledEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type * as z from 'zod';
import { functionEdge, type LambdaHandler, lastly } from './observability/invocation.ts';
import { logger } from './observability/logger.ts';

export function recordHandler<S extends z.ZodType>(
  name: string,
  schema: S,
  processRecord: (message: z.output<S>, record: SQSRecord) => Promise<void>,
): LambdaHandler<SQSEvent, SQSBatchResponse> {
  return functionEdge<SQSEvent, SQSBatchResponse>(async (event) => {
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        let json: unknown;
        try {
          json = JSON.parse(record.body);
        } catch {
          json = record.body;
        }
        const parsed = schema.safeParse(json);
        if (!parsed.success) throw new Error(`Malformed ${name} message`);
        await processRecord(parsed.data, record);
      } catch (error) {
        logger.error(`${name} record failed`, { message_id: record.messageId, error: error as Error });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  });
}

/**
 * `lastly` registers work done after the invocation's deferred work, just before it answers: a
 * visibility timeout the function sets on its records (ChangeMessageVisibility) is then the last
 * word on them, not one a slow counter write delays until after the local poller (which keeps a
 * running invocation's records hidden) has set its own.
 */
export function batchHandler(
  processBatch: (
    event: SQSEvent,
    context: Context,
    lastly: (work: () => Promise<void>) => void,
  ) => Promise<SQSBatchResponse>,
): LambdaHandler<SQSEvent, SQSBatchResponse> {
  return functionEdge<SQSEvent, SQSBatchResponse>((event, context) =>
    processBatch(event, context, (work) => lastly(context, work)),
  );
}

export function scheduledHandler(
  run: (event: ScheduledEvent, context: Context) => Promise<void>,
): LambdaHandler<ScheduledEvent, void> {
  return functionEdge<ScheduledEvent, void>(run);
}

export function customResourceHandler<R>(
  handle: (event: CloudFormationCustomResourceEvent) => Promise<R>,
): LambdaHandler<CloudFormationCustomResourceEvent, R> {
  return functionEdge<CloudFormationCustomResourceEvent, R>(handle);
}

/** A Secrets Manager rotation function: one step of a rotation per invocation; a failed step is retried by Secrets Manager. */
export function secretRotationHandler(
  handle: (event: { SecretId: string; ClientRequestToken: string; Step: string }) => Promise<void>,
): LambdaHandler<{ SecretId: string; ClientRequestToken: string; Step: string }, void> {
  return functionEdge(handle);
}
