import { allFailedDeliveries, failedDeliveryRemoval } from '#shared/adapters/dynamo/deliveries.ts';
import { countOnce } from '#shared/adapters/metrics.ts';
import { connectivity } from '#shared/adapters/repositories/connectivity.ts';
import { deleteDeadLetters, getDeadLetterIfExists } from '#shared/adapters/s3/dead-letters.ts';
import { enqueueEnvelope, requeueBody } from '#shared/adapters/sqs/ingest-queue.ts';
import { apiHandler } from '#shared/api-handler.ts';
import { visibleConnection } from '#shared/domain/connections/use-cases.ts';
import type { FailedDelivery } from '#shared/domain/ingest/kept-records.ts';
import { isUnreadable, type KeptMessage, keptMessage, redrive } from '#shared/domain/monitoring/failed-deliveries.ts';
import { ok } from '#shared/http/responses.ts';
import { monitoringRoutes } from '#shared/routes/monitoring.ts';

const deps = {
  allFailedDeliveries,
  loadEnvelope: async (key: string) => {
    const stored = await getDeadLetterIfExists(key);
    return stored === null ? null : keptMessage(stored);
  },
  async requeue(kept: KeptMessage) {
    if (isUnreadable(kept)) {
      await requeueBody(kept.unreadable_body);
      return;
    }
    const envelope = kept;
    if (envelope.payload === undefined) {
      await enqueueEnvelope(envelope, null);
      return;
    }
    const { payload, ...rest } = envelope;
    await enqueueEnvelope(rest, Buffer.from(payload, 'base64'));
  },
  async forget(failed: FailedDelivery) {
    // No longer waiting as a failed delivery: back on the queue (connection stats' unaccounted). The
    // record goes and the count grows in one transaction, so a crash between them cannot leave the
    // envelope counted dead-lettered and written both.
    const forgotten = await countOnce(
      `redriven#${failed.message_id}#${failed.failed_at}`,
      [{ metric: 'redriven', labels: { source_id: failed.source_id }, by: 1 }],
      failedDeliveryRemoval(failed),
    );
    if (!forgotten) return false;
    await deleteDeadLetters([failed.body_key]);
    return true;
  },
};

export const handler = apiHandler(
  monitoringRoutes,
  'POST /api/connections/{connection_id}/failed-deliveries/redrive',
  async ({ principal, params, body }) => {
    const connection = await visibleConnection(connectivity, principal, params.connection_id, 'write');
    return ok(await redrive(deps, connection.data_set_id, body));
  },
);
