/**
 * The ingest dead-letter queue's consumer: every envelope that exhausted its deliveries becomes a
 * failed delivery of its connection, kept whole with the writer's last error, until redriven; a
 * message that is no envelope is kept too (shared/domain/monitoring/failed-deliveries.ts,
 * recordDeadLetterMessage), so that none goes round the queue unread.
 */

import * as z from 'zod';
import { recordDeadLetterMessage } from '#shared/domain/monitoring/failed-deliveries.ts';
import { logger } from '#shared/observability/logger.ts';
import { recordHandler } from '#shared/queue-handler.ts';
import { deadLetterDeps } from './wiring-dead-letters.ts';

// Any body: the recorder reads it itself, and keeps what is no envelope rather than refuse it.
export const handler = recordHandler('dead letter', z.unknown(), async (_, record) => {
  const outcome = await recordDeadLetterMessage(deadLetterDeps, record.body, record.messageId);
  if (outcome.kind === 'recorded')
    logger.warn('Failed delivery recorded', {
      message_id: outcome.failed.message_id,
      data_set_id: outcome.failed.data_set_id,
      error: outcome.failed.last_error,
    });
  if (outcome.kind === 'unreadable')
    logger.error('A dead letter names no envelope; kept in the platform bucket', {
      queue_message_id: record.messageId,
      key: outcome.key,
    });
});
