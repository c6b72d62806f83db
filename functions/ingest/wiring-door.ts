/**
 * The door's dependencies (accept.ts, handshake.ts: the ingest use case's ports,
 * shared/domain/ingest/accept.ts), built in one place. The ingest family's other functions are wired
 * beside it: the staged-commit path in wiring.ts (it brings the Delta writer), the dead-letter
 * recorder in wiring-dead-letters.ts; each function's bundle loads only its own.
 */
import { sourceCache, tenantCache } from '#shared/adapters/dynamo/ingest-cache.ts';
import { claimDedupKey, releaseDedupKey, takeRateToken } from '#shared/adapters/dynamo/ingest-guards.ts';
import { recordRejection } from '#shared/adapters/dynamo/rejections.ts';
import { getSource } from '#shared/adapters/dynamo/sources.ts';
import { getTenant } from '#shared/adapters/dynamo/tenants.ts';
import { countAccepted, countRefused, withdrawAccepted } from '#shared/adapters/metrics.ts';
import { openSigningSecrets } from '#shared/adapters/signing-secrets.ts';
import { enqueueEnvelope } from '#shared/adapters/sqs/ingest-queue.ts';
import { setting } from '#shared/config.ts';
import type { IngestDeps } from '#shared/domain/ingest/accept.ts';
import { statusOfCode } from '#shared/http/error-status.ts';
import { logger } from '#shared/observability/logger.ts';

/** The door's: sources and tenants read through the instance's cache, guards, the ingest queue, its counts. */
export const ingestDeps = {
  // The cache is allowed INGEST_CACHE_SECONDS of staleness: an eventually consistent read is fresh enough.
  findSource: (sourceId: string) => sourceCache.get(sourceId, () => getSource(sourceId, false)),
  findTenant: (tenantId: string) => tenantCache.get(tenantId, () => getTenant(tenantId, false)),
  signingSecrets: (source) => openSigningSecrets(source),
  takeRateToken,
  claimDedupKey,
  releaseDedupKey,
  enqueue: enqueueEnvelope,
  maxBodyBytes: setting('INGEST_MAX_BYTES'),
  countAccepted,
  withdrawAccepted,
  countRefused,
  recordRejection: (sourceId, rejection) =>
    recordRejection(sourceId, rejection).catch((error: Error) =>
      logger.warn('Could not record a rejection', { source_id: sourceId, error: error.message }),
    ),
  statusOf: (code) => statusOfCode[code],
} satisfies IngestDeps;
