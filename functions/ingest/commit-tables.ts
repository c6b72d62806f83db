/**
 * The table committer: the commits queue's consumer. Each message is a commit trigger for one table
 * (shared/domain/ingest/staging.ts); its table is committed when due, or its trigger sent again for
 * when it is. A message that is not a trigger is reported failed (it moves to the queue's dead-letter
 * queue); a table's failing commits are counted in its staging head, not by the queue.
 */
import type { SQSEvent } from 'aws-lambda';
import { triggerOf } from '#shared/adapters/sqs/commit-triggers.ts';
import { commitTriggered } from '#shared/domain/ingest/commit-staged.ts';
import type { CommitTrigger } from '#shared/domain/ingest/staging.ts';
import { logger } from '#shared/observability/logger.ts';
import { batchHandler } from '#shared/queue-handler.ts';
import { committing, stagingDeps } from './wiring.ts';

export const handler = batchHandler(async (event: SQSEvent, context) => {
  const triggers: CommitTrigger[] = [];
  const unreadable: string[] = [];
  for (const record of event.Records) {
    try {
      triggers.push(triggerOf(record.body));
    } catch {
      unreadable.push(record.messageId);
    }
  }
  const report = await commitTriggered(stagingDeps, triggers, committing(context.getRemainingTimeInMillis(), 10));
  if (report.committed.length + report.deadLettered.length + report.failed.length + report.retried.length > 0)
    logger.info('Staged tables committed', {
      committed: report.committed.length,
      written: report.written,
      skipped: report.skipped,
      expired: report.expired,
      dead_lettered: report.deadLettered.length,
      failed: report.failed.length,
      retried: report.retried.length,
      waiting: report.waiting,
    });
  return { batchItemFailures: unreadable.map((itemIdentifier) => ({ itemIdentifier })) };
});
