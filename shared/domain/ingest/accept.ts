import { randomUUID } from 'node:crypto';
import type { Source } from '../connections/model.ts';
import { DomainError, notFound, refused, tooLarge, unauthorized } from '../errors.ts';
import type { Tenant } from '../tenants/model.ts';
import { hashToken, sameHash } from '../tokens.ts';
import { type EnvelopeMessage, nowMicros, utcDate } from './envelope.ts';

export interface IngestDeps {
  findSource(sourceId: string): Promise<Source | null>;
  findTenant(tenantId: string): Promise<Tenant | null>;
  /** Resolves once the envelope is durably on the ingest queue. */
  enqueue(envelope: EnvelopeMessage, body: Buffer): Promise<void>;
  maxBodyBytes: number;
}

export interface IngestRequest {
  sourceId: string;
  authorization: string | undefined;
  /** undefined when the query has no feed parameter; '' when it is present but empty. */
  feed: string | undefined;
  contentType: string | null;
  body: Buffer;
}

const feedPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function bearerToken(authorization: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1] ?? null;
}

/**
 * Accept one webhook request.
 * Input: the source id, the raw request. Output: the message id, once the envelope is queued.
 * The checks run in the contract's order (section 4), so that each refusal says the first thing wrong:
 *  1. no bearer token → 401;  2. unknown source → 404;  3. token not this source's → 401;
 *  4. malformed feed → 400;   5. tenant suspended → 422; 6. source paused → 422;
 *  7. connection inactive → 422;  8. no object store → 422;  9. body too large → 413.
 * Then the envelope (raw body base64, content type exactly as sent) goes on the queue; 202 follows.
 * A refusal is an outcome, not an exception, so that the caller can record it for its source.
 */
export type IngestOutcome =
  | { accepted: true; messageId: string; source: Source }
  /** `source` is set once the request was matched to a source: the refusal is that source's to see. */
  | { accepted: false; error: DomainError; source: Source | null };

export async function acceptIngest(deps: IngestDeps, request: IngestRequest): Promise<IngestOutcome> {
  const token = bearerToken(request.authorization);
  if (!token) return { accepted: false, error: unauthorized('A bearer ingest token is required'), source: null };
  const source = await deps.findSource(request.sourceId);
  if (!source) return { accepted: false, error: notFound('Data source'), source: null };
  try {
    return await acceptForSource(deps, request, source, token);
  } catch (error) {
    if (error instanceof DomainError) return { accepted: false, error, source };
    throw error;
  }
}

async function acceptForSource(
  deps: IngestDeps,
  request: IngestRequest,
  source: Source,
  token: string,
): Promise<IngestOutcome> {
  if (!sameHash(source.token_hash, hashToken(token)))
    throw unauthorized('The ingest token is not valid for this source');
  if (request.feed !== undefined && !feedPattern.test(request.feed)) {
    throw new DomainError(
      'INVALID_FEED',
      'The feed name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
      [{ path: 'feed', message: 'Invalid feed name' }],
    );
  }
  const tenant = await deps.findTenant(source.tenant_id);
  if (!tenant) throw notFound('Data source');
  if (tenant.status === 'Suspended') throw refused('TENANT_SUSPENDED', 'The tenant is suspended');
  if (source.source_status === 'Paused') throw refused('SOURCE_PAUSED', 'The data source is paused');
  if (source.connection_status !== 'Active') throw refused('CONNECTION_NOT_ACTIVE', 'The connection is not active');
  if (!tenant.default_object_store_id) {
    throw refused('OBJECT_STORE_NOT_CONFIGURED', 'The tenant has no object store yet; register one first');
  }
  if (request.body.length > deps.maxBodyBytes)
    throw tooLarge(`Ingest bodies are limited to ${deps.maxBodyBytes} bytes`);

  const ingestedAt = nowMicros();
  const envelope: EnvelopeMessage = {
    v: 1,
    message_id: randomUUID(),
    data_set_id: source.data_set_id,
    dt: utcDate(ingestedAt),
    ingested_at_us: ingestedAt.toString(),
    source_id: source.source_id,
    tenant_id: source.tenant_id,
    content_type: request.contentType,
    payload_size: request.body.length,
  };
  await deps.enqueue(envelope, request.body);
  return { accepted: true, messageId: envelope.message_id, source };
}
