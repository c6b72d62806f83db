/**
 * The upkeep queue (shared/domain/observability/counter-upkeep.ts): one message per piece of the
 * counters' upkeep, a shard of a window or of a quarter's fold, for as many workers as there are pieces.
 */
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { config } from '../../config.ts';
import type { UpkeepPiece } from '../../domain/observability/counter-upkeep.ts';
import { queues } from '../../topology.ts';
import { sqs } from './client.ts';

/** A piece as sent, and as the worker reads it. */
export const pieceMessage = z.strictObject({
  kind: z.enum(['moved', 'fold']),
  at: z.number().int(),
  shard: z.number().int().min(0),
  step: z.number().int().min(0).optional(),
  after: z.string().min(1).optional(),
});

export async function sendUpkeepPieces(pieces: readonly UpkeepPiece[]): Promise<void> {
  for (let i = 0; i < pieces.length; i += 10) {
    const entries = pieces.slice(i, i + 10).map((piece, index) => ({
      Id: String(index),
      MessageBody: JSON.stringify(piece),
    }));
    const result = await sqs.send(
      new SendMessageBatchCommand({ QueueUrl: config.queueUrl(queues.upkeep.envVar), Entries: entries }),
    );
    if ((result.Failed ?? []).length > 0)
      throw new Error(`SQS refused ${result.Failed?.length} upkeep piece(s): ${result.Failed?.[0]?.Code ?? ''}`);
  }
}
