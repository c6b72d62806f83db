/**
 * The commits queue (shared/domain/ingest/staging.ts): one message per commit trigger, its body the
 * table and when the trigger is meant to arrive, delayed until then (SQS delays a message 15 minutes
 * at most: one meant to arrive later arrives early, and its committer sends it again).
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { config } from '../../config.ts';
import type { CommitTrigger, CommitTriggers } from '../../domain/ingest/staging.ts';
import { queues } from '../../topology.ts';
import { sqs } from './client.ts';

const maxDelaySeconds = 900;

/** A trigger message as sent, and as the committer reads it. */
export const triggerMessage = z.object({ data_set_id: z.string().min(1), at: z.number() });

export function triggerOf(body: string): CommitTrigger {
  const message = triggerMessage.parse(JSON.parse(body));
  return { tableId: message.data_set_id, at: message.at };
}

export const commitTriggers: CommitTriggers = {
  maxDelayMs: maxDelaySeconds * 1000,
  earlyMs: 1000,
  async send(triggers) {
    const now = Date.now();
    for (let i = 0; i < triggers.length; i += 10) {
      const entries = triggers.slice(i, i + 10).map((trigger, index) => ({
        Id: String(index),
        MessageBody: JSON.stringify({ data_set_id: trigger.tableId, at: trigger.at }),
        // Rounded down: a trigger never arrives late, and at most a second early (earlyMs).
        DelaySeconds: Math.min(maxDelaySeconds, Math.max(0, Math.floor((trigger.at - now) / 1000))),
      }));
      const result = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: config.queueUrl(queues.commits.envVar), Entries: entries }),
      );
      if ((result.Failed ?? []).length > 0)
        throw new Error(`SQS refused ${result.Failed?.length} commit trigger(s): ${result.Failed?.[0]?.Code ?? ''}`);
    }
  },
};
