import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { settledBy } from '../at-most.ts';
import type { Source } from '../connections/model.ts';
import { defaultToleranceOf, type Handshake, type Preset, presetOf } from '../connections/presets.ts';
import { allowed, allowlistOf, type DedupKey, usesBearer, usesSignature } from '../connections/security.ts';
import { secretHeadersOf } from '../connections/signature-headers.ts';
import {
  DomainError,
  type ErrorCode,
  forbidden,
  notFound,
  notQueuedInTime,
  rateLimited,
  refused,
  tooLarge,
  unauthorized,
} from '../errors.ts';
import { textAtPointer } from '../json-pointer.ts';
import type { Tenant } from '../tenants/model.ts';
import { hashToken, sameHash } from '../tokens.ts';
import { safeHeaders } from './credential-headers.ts';
import { type EnvelopeMessage, envelopeHeaders, nowMicros, type Receipt, utcDate } from './envelope.ts';
import {
  answerHandshake,
  type HandshakeAnswer,
  handshakeOf,
  signsUnsignedChallenges,
  unsignedChallengePattern,
} from './handshakes.ts';
import type { Rejection } from './kept-records.ts';
import { type SignedRequest, verifySignature } from './signatures.ts';

export interface IngestDeps {
  findSource(sourceId: string): Promise<Source | null>;
  findTenant(tenantId: string): Promise<Tenant | null>;
  /** The source's signing secrets still valid now, opened. */
  signingSecrets(source: Source): Promise<string[]>;
  takeRateToken(
    sourceId: string,
    requestsPerSecond: number,
    burst: number,
  ): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  /** The message id to use for a request with this deduplication key (the first request's, inside the window). */
  claimDedupKey(sourceId: string, key: string, messageId: string, windowSeconds: number): Promise<string>;
  /** Gives a claim back, if it still names `messageId`: its request was not queued after all. */
  releaseDedupKey(sourceId: string, key: string, messageId: string): Promise<void>;
  /**
   * Resolves once the envelope is durably on the ingest queue. With a deadline, an envelope not
   * handed to the queue by `queueBy` never is: it rejects with a DomainError (the refusal to answer);
   * one handed over in time whose queue call has not answered by `answerBy` is given up, its outcome
   * unknown: it rejects with another error (answered 500, as a queue call that failed).
   */
  enqueue(envelope: EnvelopeMessage, body: Buffer, deadline?: QueueDeadline): Promise<void>;
  maxBodyBytes: number;
  /** Counts a 202 about to be answered; answers the receipt its envelope carries. */
  countAccepted(sourceId: string, duplicate: boolean): Receipt;
  /** Takes that count back when the envelope could not be queued (the request fails instead). */
  withdrawAccepted(sourceId: string, duplicate: boolean): void;
  /** Counts a refusal (source 'unknown' when the request named none that exists). */
  countRefused(sourceId: string, status: number, code: ErrorCode): void;
  /** Keeps a refusal for the source's tenant to see; a failure to keep it must not fail the request. */
  recordRejection(sourceId: string, rejection: Rejection): Promise<void>;
  /** The HTTP status an error code is answered with (the refusal is counted and kept with it). */
  statusOf(code: ErrorCode): number;
}

export interface IngestRequest {
  sourceId: string;
  /** POST for events (the default); GET only for the handshakes that providers make with it (Meta, Dropbox, X, Okta). */
  method?: 'GET' | 'POST';
  /** Request headers, by lowercase name. */
  header(name: string): string | undefined;
  /** Every header as received (a refusal keeps those that are not credentials or signatures). */
  headers: Record<string, string | undefined>;
  /** undefined when the query has no feed parameter; '' when it is present but empty. */
  feed: string | undefined;
  /** Query parameters, decoded (a handshake's challenge, Twilio's bodySHA256). */
  query?: Record<string, string | undefined>;
  /** The query string exactly as received, without `?` (URL-signing schemes sign it). */
  rawQuery?: string;
  /** Where the request reached the API (`https://host`): the ingest URL of a source created before it was kept. */
  baseUrl?: string;
  sourceIp: string;
  body: Buffer;
  /**
   * How long the request may still take (the function's remaining time). Its envelope must be
   * handed to the queue before the last `queueCallReserveMs` of it; past that the request is
   * refused (503) and nothing is kept. An envelope handed over in time is answered by the queue's
   * outcome, so that a sender never gets a 503 for an envelope that was queued (and would be stored
   * twice when it retried); a queue call still unanswered at the last `answerReserveMs` is given up
   * and answered 500, its outcome unknown (as when its attempts fail), rather than left for the
   * function's timeout to end, which the sender would hear as the gateway's bare error.
   */
  timeLeftMs?: number;
}

/** The last part of a request's time, kept for the queue call itself and the answer after it. */
export const queueCallReserveMs = 1000;
/** The end of that reserve, kept to answer once the queue call is over or given up. */
export const answerReserveMs = 100;

/**
 * When an envelope must be handed to the queue (`queueBy`), and when its queue call must have
 * answered (`answerBy`), in ms since the epoch.
 */
export interface QueueDeadline {
  queueBy: number;
  answerBy: number;
}

/** A request's outcome: an event accepted (queued), or a provider's handshake answered (nothing stored). */
export type IngestAnswer =
  | { kind: 'accepted'; messageId: string; sourceId: string }
  | { kind: 'handshake'; answer: HandshakeAnswer; sourceId: string };

/** A deduplication key this request claimed (its own message id the first inside the window). */
interface Claimed {
  sourceId: string;
  key: string;
  messageId: string;
}

type Decision =
  | { accepted: true; envelope: EnvelopeMessage; duplicate: boolean; source: Source; claimed: Claimed[] }
  | { accepted: 'handshake'; answer: HandshakeAnswer; sourceId: string }
  /** `source` is set once the request was matched to a source: the refusal is that source's to see. */
  | { accepted: false; error: DomainError; source: Source | null };

const feedPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Source ids are UUIDs: anything else is an unknown source, known without asking the table. */
const sourceIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function bearerToken(authorization: string | undefined): string | null {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1] ?? null;
}

/**
 * Accept one webhook request, or answer a provider's handshake.
 * Input: the source id and the raw request (a POST; a GET only for a handshake). Output: the message
 * id, once the envelope is queued, or the handshake's answer (nothing queued, nothing counted as
 * accepted); a refusal is thrown as the DomainError it is answered with.
 * The checks, in order, so that each refusal names the first thing wrong and nothing is learnt
 * about a source without its credentials:
 *   1. no bearer token where the source takes one (or the source is unknown) → 401;
 *   2. unknown source → 404;
 *   3. source IP outside its allowlist → 403;
 *   4. is it the handshake of the source's preset? (one lookup or byte search) A GET that is not → 404;
 *   5. bearer token not this source's → 401; signature missing, wrong or stale → 401 (detail says
 *      which); skipped only for a handshake the provider sends unsigned;
 *   6. a handshake: its verify token (Meta) → 401, then its answer;
 *   7. malformed feed → 400;  8. over the rate limit → 429 with Retry-After;
 *   9. tenant suspended, source paused, connection inactive, no object store → 422;
 *  10. body too large → 413;  11. no time left to queue the envelope (timeLeftMs) → 503.
 * Then the envelope (raw body base64, content type exactly as sent, the headers but credentials) goes on the queue and 202 follows
 * (a queue call still unanswered at the end of the request's time is given up: 500, outcome unknown).
 * Inside a deduplication window, a repeated key (where the source's dedup_key says, else its
 * preset's event id, else webhook-id, else Idempotency-Key) gets the first request's message id:
 * the envelope is queued again under it, and the writer keeps one row per message id.
 * Every answer is counted per source (a 202 as it is queued, its receipt riding on the envelope), and
 * a refusal of an identified source is also kept for its tenant to see.
 */
export async function acceptIngest(deps: IngestDeps, request: IngestRequest): Promise<IngestAnswer> {
  const endsAt = request.timeLeftMs === undefined ? undefined : Date.now() + request.timeLeftMs;
  const deadline: QueueDeadline | undefined =
    endsAt === undefined ? undefined : { queueBy: endsAt - queueCallReserveMs, answerBy: endsAt - answerReserveMs };
  const queueBy = deadline?.queueBy;
  // Not made by `queueBy`: null, and what the decision still does after is never queued.
  const deciding = decide(deps, request);
  const decision = await settledBy(deciding, queueBy ?? Number.POSITIVE_INFINITY, null);
  // A lookup that has not answered in time (DynamoDB tries a stalled call again, 5 s each): nothing
  // is queued, and the sender hears so in the contract's words rather than the gateway's timeout. A
  // deduplication key the decision still claims is given back once it does.
  if (decision === null) {
    deciding.then((late) => (late.accepted === true ? release(deps, late.claimed) : undefined)).catch(() => undefined);
    return refuse(deps, request, notQueuedInTime(), null, deadline);
  }
  if (!decision.accepted) return refuse(deps, request, decision.error, decision.source, deadline);
  if (decision.accepted === 'handshake')
    return { kind: 'handshake', answer: decision.answer, sourceId: decision.sourceId };
  const { envelope, duplicate, source, claimed } = decision;
  if (queueBy !== undefined && Date.now() >= queueBy) {
    await release(deps, claimed);
    return refuse(deps, request, notQueuedInTime(), source, deadline);
  }
  const receipt = deps.countAccepted(envelope.source_id, duplicate);
  try {
    await deps.enqueue({ ...envelope, receipt }, request.body, deadline);
  } catch (error) {
    deps.withdrawAccepted(envelope.source_id, duplicate);
    if (error instanceof DomainError) {
      await release(deps, claimed);
      return refuse(deps, request, error, source, deadline);
    }
    throw error;
  }
  return { kind: 'accepted', messageId: envelope.message_id, sourceId: envelope.source_id };
}

/**
 * A request that claimed its deduplication key and was not queued gives the key back: the sender's retry then
 * claims it as a first request, rather than be counted a duplicate of a request that is nowhere, whose row it
 * writes (the source's figure one below what it holds, which would hide a later loss). Best effort: a claim
 * that stays lasts its window, as before.
 */
async function release(deps: IngestDeps, claimed: Claimed[]): Promise<void> {
  for (const claim of claimed)
    await deps.releaseDedupKey(claim.sourceId, claim.key, claim.messageId).catch(() => undefined);
}

/**
 * Counts a refusal, keeps it for its source when the request was matched to one, and throws it. The
 * kept headers leave out every header the source's signature settings read (its own header too):
 * a request refused for the source's state may carry a valid signature. Keeping it waits at most
 * until the request's `answerBy`: a refusal made late because the table was slow (503) would
 * otherwise wait on the same slow table for its record and run past the function's timeout, which
 * the sender hears as the gateway's bare 500. The count is the figure; the kept record is a sample,
 * left to finish on its own.
 */
async function refuse(
  deps: IngestDeps,
  request: IngestRequest,
  error: DomainError,
  source: Source | null,
  deadline?: QueueDeadline,
): Promise<never> {
  const status = deps.statusOf(error.code);
  deps.countRefused(source?.source_id ?? 'unknown', status, error.code);
  if (source) {
    const keeping = deps.recordRejection(source.source_id, {
      at: new Date().toISOString(),
      status,
      code: error.code,
      content_type: request.header('content-type')?.slice(0, 256) ?? null,
      payload_size: request.body.length,
      headers: safeHeaders(request.headers, secretHeadersOf(source.security.signature)),
    });
    await settledBy(keeping, deadline?.answerBy ?? Number.POSITIVE_INFINITY, undefined);
  }
  throw error;
}

async function decide(deps: IngestDeps, request: IngestRequest): Promise<Decision> {
  const token = bearerToken(request.header('authorization'));
  const source = sourceIdPattern.test(request.sourceId) ? await deps.findSource(request.sourceId) : null;
  if (!token && (!source || usesBearer(source.security))) {
    return { accepted: false, error: unauthorized('A bearer ingest token is required'), source: null };
  }
  if (!source) return { accepted: false, error: notFound('Data source'), source: null };
  try {
    return await acceptForSource(deps, request, source, token);
  } catch (error) {
    if (error instanceof DomainError) return { accepted: false, error, source };
    throw error;
  }
}

function isSingleField(document: unknown): boolean {
  return document !== null && typeof document === 'object' && Object.keys(document).length === 1;
}

/** The request's deduplication key: where the source (or its preset) says, else webhook-id, else Idempotency-Key. */
function dedupKeyOf(key: DedupKey | null, request: SignedRequest): string | undefined {
  let own: string | undefined;
  if (key) own = 'header' in key ? request.headers(key.header) : textAtPointer(request.json(), key.json_pointer);
  return own || request.headers('webhook-id') || request.headers('idempotency-key');
}

/** The request as a signature scheme reads it; the body is parsed as JSON once, and only if asked. */
function signedRequestOf(request: IngestRequest, source: Source): SignedRequest {
  let parsed: { value: unknown } | undefined;
  const query = request.query ?? {};
  const ingestUrl = source.ingest_url ?? `${request.baseUrl ?? ''}/api/ingest/${source.source_id}`;
  return {
    method: request.method ?? 'POST',
    headers: request.header,
    body: request.body,
    url: request.rawQuery ? `${ingestUrl}?${request.rawQuery}` : ingestUrl,
    query: (name) => query[name],
    json: () => {
      if (!parsed) {
        try {
          parsed = { value: JSON.parse(request.body.toString('utf8')) };
        } catch {
          parsed = { value: undefined };
        }
      }
      return parsed.value;
    },
  };
}

async function acceptForSource(
  deps: IngestDeps,
  request: IngestRequest,
  source: Source,
  token: string | null,
): Promise<Decision> {
  const { security } = source;
  // An entry stored before entries were checked as strictly ("203.0.113.7/", once read as /0) admits no one.
  if (security.ip_allowlist && !allowed(allowlistOf(security.ip_allowlist, 'matches nothing'), request.sourceIp)) {
    throw forbidden('This source does not accept requests from this address');
  }
  const signed = signedRequestOf(request, source);
  const preset = usesSignature(security) && security.signature ? presetOf(security.signature.scheme) : null;
  // One lookup or byte search for every request; the handshake's own checks only for a handshake.
  const handshake = handshakeOf(preset?.handshake ?? null, signed);
  if (!handshake && request.method === 'GET') throw notFound('Route');
  // An unsigned handshake taken in as an event (Notion's verification token) is that one field and nothing else.
  if (handshake && !handshake.authenticated && 'acceptAsEvent' in handshake.answer && !isSingleField(signed.json()))
    throw unauthorized('The request signature is missing, wrong or too old', [
      { path: 'signature', message: 'MISSING_SIGNATURE' },
    ]);
  // Events, and the handshakes a provider signs, are authenticated as every request of the source; an
  // unsigned handshake still needs the source's bearer token where it takes one.
  const secrets = !handshake || handshake.authenticated ? await authenticate(deps, source, token, signed) : null;
  if (handshake && !handshake.authenticated) checkBearer(source, token);
  // A body the handshake could have signed (a token, not JSON) is not taken as a signed event.
  if (
    !handshake &&
    signsUnsignedChallenges(preset?.handshake) &&
    unsignedChallengePattern.test(signed.body.toString('latin1'))
  )
    throw unauthorized('The request signature is missing, wrong or too old', [
      { path: 'signature', message: 'INVALID_SIGNATURE' },
    ]);
  if (handshake && !('acceptAsEvent' in handshake.answer)) {
    // A suspended tenant's or an inactive connection's source answers no handshake (a paused one does:
    // its provider keeps the subscription and retries the events refused meanwhile).
    await checkState(deps, source, { paused: false });
    return handshakeAnswered(deps, source, handshake, signed, secrets);
  }
  await checkAcceptable(deps, request, source);
  const envelope = await envelopeOf(
    deps,
    request,
    source,
    security.dedup_key ?? preset?.dedupKey ?? null,
    signed,
    preset,
  );
  return { accepted: true, ...envelope, source };
}

/**
 * Step 5: the bearer token, then the signature, where the source takes them. The signing secrets
 * read for it (null when the source takes no signature).
 */
async function authenticate(
  deps: IngestDeps,
  source: Source,
  token: string | null,
  signed: SignedRequest,
): Promise<string[] | null> {
  const { security } = source;
  checkBearer(source, token);
  if (!usesSignature(security)) return null;
  const secrets = security.signature ? await deps.signingSecrets(source) : [];
  const failure = security.signature ? verifySignature(security.signature, secrets, signed) : 'INVALID_SIGNATURE';
  if (failure)
    throw unauthorized('The request signature is missing, wrong or too old', [{ path: 'signature', message: failure }]);
  return secrets;
}

function checkBearer(source: Source, token: string | null): void {
  if (usesBearer(source.security) && !sameHash(source.token_hash, hashToken(token ?? '')))
    throw unauthorized('The ingest token is not valid for this source');
}

/** Step 6: a handshake's verify token (Meta), then its answer (signed with the source's secret where it proves one). */
async function handshakeAnswered(
  deps: IngestDeps,
  source: Source,
  handshake: Handshake,
  signed: SignedRequest,
  read: string[] | null,
): Promise<Decision> {
  if (handshake.verifyTokenParam) {
    const given = signed.query(handshake.verifyTokenParam);
    const expected = source.security.signature?.verify_token_hash;
    if (!given || !expected || !sameHash(expected, hashToken(given)))
      throw unauthorized('The verify token is not this source’s', [
        { path: handshake.verifyTokenParam, message: 'INVALID_SIGNATURE' },
      ]);
  }
  const proves = Object.values('json' in handshake.answer ? handshake.answer.json : {}).some(
    (value) => typeof value === 'object' && 'hmac' in value,
  );
  const secrets = proves && read === null ? await deps.signingSecrets(source) : read;
  return {
    accepted: 'handshake',
    answer: answerHandshake(handshake, signed, secrets?.[0] ?? null),
    sourceId: source.source_id,
  };
}

/** Steps 7 to 10: the feed's name, the rate limit, the tenant's, source's and connection's state, the body's size. */
async function checkAcceptable(deps: IngestDeps, request: IngestRequest, source: Source): Promise<void> {
  const { security } = source;
  if (request.feed !== undefined && !feedPattern.test(request.feed)) {
    throw new DomainError(
      'INVALID_FEED',
      'The feed name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
      [{ path: 'feed', message: 'Invalid feed name' }],
    );
  }
  if (security.rate_limit) {
    const decision = await deps.takeRateToken(
      source.source_id,
      security.rate_limit.requests_per_second,
      security.rate_limit.burst,
    );
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
  }
  const tenant = await checkState(deps, source, { paused: true });
  if (!tenant.default_object_store_id) {
    throw refused('OBJECT_STORE_NOT_CONFIGURED', 'The tenant has no object store yet; register one first');
  }
  if (request.body.length > deps.maxBodyBytes)
    throw tooLarge(`Ingest bodies are limited to ${deps.maxBodyBytes} bytes`);
}

/**
 * The claim of a signature's nonce (Mailgun's `/signature/token`), for as long as its timestamp is
 * taken: a provider that signs a nonce and a time but not the body lets a captured signature carry
 * any body while its time is taken, unless the nonce is taken once, by one body. A second request
 * with the same nonce and body is a retry whose answer was lost (the first one's duplicate, under its
 * message id); with another body, refused.
 */
function replayClaimOf(
  preset: Preset | null,
  security: Source['security'],
  signed: SignedRequest,
): { key: string; windowSeconds: number } | null {
  if (!preset?.replayKey || !security.signature) return null;
  const nonce = textAtPointer(signed.json(), preset.replayKey.json_pointer);
  const windowSeconds = security.signature.tolerance_seconds ?? defaultToleranceOf(security.signature.scheme);
  if (!nonce || windowSeconds === null) return null;
  return { key: `replay:${nonce.slice(0, 500)}`, windowSeconds: 2 * windowSeconds };
}

/** The tenant's, connection's and (unless `paused` is false) source's state: 422 for each that refuses requests. */
async function checkState(deps: IngestDeps, source: Source, refuses: { paused: boolean }) {
  const tenant = await deps.findTenant(source.tenant_id);
  if (!tenant) throw notFound('Data source');
  if (tenant.status === 'Suspended') throw refused('TENANT_SUSPENDED', 'The tenant is suspended');
  if (refuses.paused && source.source_status === 'Paused') throw refused('SOURCE_PAUSED', 'The data source is paused');
  if (source.connection_status !== 'Active') throw refused('CONNECTION_NOT_ACTIVE', 'The connection is not active');
  return tenant;
}

/** The envelope of an accepted request, under its own message id or, inside a deduplication window, the first request's. */
async function envelopeOf(
  deps: IngestDeps,
  request: IngestRequest,
  source: Source,
  dedupKey: DedupKey | null,
  signed: SignedRequest,
  preset: Preset | null,
): Promise<{ envelope: EnvelopeMessage; duplicate: boolean; claimed: Claimed[] }> {
  const { security } = source;
  const ingestedAt = nowMicros();
  // Time-ordered (UUID version 7, of the ingest time): a lookup by id reads only what was ingested
  // since, and the files' message id statistics become narrow enough to skip files by.
  const ownId: string = uuidv7({ msecs: Number(ingestedAt / 1000n) });
  let messageId = ownId;
  const claimed: Claimed[] = [];
  const key = security.dedup_window_seconds > 0 ? dedupKeyOf(dedupKey, signed)?.slice(0, 512) : undefined;
  if (key) {
    messageId = await deps.claimDedupKey(source.source_id, key, ownId, security.dedup_window_seconds);
    if (messageId === ownId) claimed.push({ sourceId: source.source_id, key, messageId });
  }
  // Then the signature's own nonce, whatever the deduplication settings (see replayClaimOf): taken by
  // this message and this body. Taken by another, the signature is a captured one: refused, and what
  // this request claimed is given back.
  const replay = replayClaimOf(preset, security, signed);
  if (replay) {
    const body = createHash('sha256').update(request.body).digest('base64url');
    const mine = `${body} ${messageId}`;
    const holder = await deps.claimDedupKey(source.source_id, replay.key, mine, replay.windowSeconds);
    const [heldBody, heldId] = holder.split(' ');
    // The token is this request's to give back only if this request is the first of its message: a
    // duplicate's refusal must not free a token its first request was answered 202 with.
    if (holder === mine) {
      if (messageId === ownId) claimed.push({ sourceId: source.source_id, key: replay.key, messageId: mine });
    } else if (heldBody === body && heldId) {
      // The same signed request again: the first one's duplicate.
      await release(deps, claimed);
      claimed.length = 0;
      messageId = heldId;
    } else {
      await release(deps, claimed);
      throw unauthorized('The request signature is missing, wrong or too old', [
        { path: 'signature', message: 'INVALID_SIGNATURE' },
      ]);
    }
  }
  const envelope: EnvelopeMessage = {
    v: 1,
    message_id: messageId,
    data_set_id: source.data_set_id,
    dt: utcDate(ingestedAt),
    ingested_at_us: ingestedAt.toString(),
    source_id: source.source_id,
    tenant_id: source.tenant_id,
    content_type: request.header('content-type') ?? null,
    payload_size: request.body.length,
    headers: envelopeHeaders(request.headers, secretHeadersOf(security.signature)),
  };
  return { envelope, duplicate: messageId !== ownId, claimed };
}
