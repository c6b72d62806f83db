/**
 * The handler pattern for queue consumers: each record is parsed against its schema and processed
 * on its own; records that fail are reported as batch item failures so that only they return to
 * the queue (and, on their fifth receive, move to its dead-letter queue).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import { logger } from './observability/logger.ts';

export function recordHandler<S extends z.ZodType>(
  name: string,
  schema: S,
  processRecord: (message: z.output<S>, record: SQSRecord) => Promise<void>,
): (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event) => {
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
    }) as unknown as (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;
}
