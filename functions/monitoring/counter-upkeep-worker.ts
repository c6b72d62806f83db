/**
 * A piece of the counters' upkeep (shared/domain/observability/counter-upkeep.ts), from the upkeep
 * queue: a shard of a settled window (the figures of the sources that moved in it, each read once)
 * or of a settled quarter (its epochs folded). A piece hands on what it leaves to a piece of its own.
 */
import { foldPiece, keepFigure, keptFigures, movedPage, unaccountedOf } from '#shared/adapters/dynamo/counters.ts';
import { stagedOfSources } from '#shared/adapters/dynamo/staged-by-source.ts';
import { pieceMessage, sendUpkeepPieces } from '#shared/adapters/sqs/upkeep-queue.ts';
import { settleMoved } from '#shared/domain/observability/counter-upkeep.ts';
import { recordHandler } from '#shared/queue-handler.ts';

export const handler = recordHandler('upkeep piece', pieceMessage, async (piece) => {
  if (piece.kind === 'fold') await foldPiece(piece, sendUpkeepPieces);
  else
    await settleMoved(
      { movedPage, keptFigures, unaccountedOf, stagedOf: stagedOfSources, keep: keepFigure, send: sendUpkeepPieces },
      piece,
    );
});
