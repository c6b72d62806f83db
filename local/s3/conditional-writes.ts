/**
 * S3's conditional writes (since August 2024) in the stand-in, as S3 answers them, so that local mode
 * runs the same put-if-absent path as a real store:
 *
 *   If-None-Match: *      write only when the key holds no object, else 412 PreconditionFailed
 *   If-Match: <etag>      write only over the object with that ETag (quotes ignored): 412 on another
 *                         ETag, 404 NoSuchKey when there is no object
 *   any other If-None-Match value, or both headers   501 NotImplemented
 *
 * The condition is checked when the request arrives and holds until the write lands: a write or
 * delete of the same key that completes while this request's body is still arriving makes it fail
 * with 409 ConditionalRequestConflict (S3: "a conflicting operation occurred during the upload;
 * retry"), so of N racing conditional writes of one key exactly one succeeds. Checks and the final
 * rename of every write and delete of a key run one at a time (a lock per key), which makes the
 * check-then-write atomic against every other request of the stand-in (one process).
 *
 * PutObject, CopyObject (the destination) and CompleteMultipartUpload carry conditions; the headers
 * reach the store through the request's async context, since s3rver hands the store only the object.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import S3Error from 's3rver/lib/models/error.js';

export interface WriteCondition {
  /** `If-None-Match: *`. */
  absent: boolean;
  /** `If-Match`, without quotes. */
  etag: string | null;
}

const requestConditions = new AsyncLocalStorage<WriteCondition | null>();

/** The condition of the request being served, if it carries one. */
export function currentCondition(): WriteCondition | null {
  return requestConditions.getStore() ?? null;
}

const unquoted = (etag: string) => etag.trim().replace(/^W\//, '').replace(/"/g, '');

/**
 * S3's own answer to a conditional write it does not support (If-None-Match other than `*`, or both
 * headers at once): what a client must see from local mode too, not a feature left out.
 */
function notImplemented(header: string): S3Error {
  return new S3Error('NotImplemented', 'A header you provided implies functionality that is not implemented', {
    Header: header,
  });
}

export function preconditionFailed(header: 'If-None-Match' | 'If-Match'): S3Error {
  return new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', {
    Condition: header,
  });
}

export function noSuchKey(key: string): S3Error {
  return new S3Error('NoSuchKey', 'The specified key does not exist.', { Key: key });
}

/** s3rver's table of statuses predates conditional writes: this one is set by hand. */
export function conditionalRequestConflict(): S3Error {
  const error = new S3Error(
    'ConditionalRequestConflict',
    'A conflicting conditional operation is currently in progress against this resource. Please try again.',
  );
  error.status = 409;
  error.expose = true;
  return error;
}

/** Reads and checks the request's conditional headers (writes only; GET and HEAD keep s3rver's own handling). */
function conditionOf(headers: Record<string, string | string[] | undefined>): WriteCondition | null {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const noneMatch = header('if-none-match');
  const match = header('if-match');
  if (noneMatch === undefined && match === undefined) return null;
  if (noneMatch !== undefined && match !== undefined) throw notImplemented('If-Match');
  if (noneMatch !== undefined && noneMatch.trim() !== '*') throw notImplemented('If-None-Match');
  return { absent: noneMatch !== undefined, etag: match === undefined ? null : unquoted(match) };
}

interface KoaLikeContext {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Koa middleware: every PUT and POST runs with its condition in context (a bad one is refused before its body is read). */
export async function conditionalWrites(ctx: KoaLikeContext, next: () => Promise<unknown>): Promise<void> {
  if (ctx.method !== 'PUT' && ctx.method !== 'POST') {
    await next();
    return;
  }
  await requestConditions.run(conditionOf(ctx.headers), next);
}

/** Does the stored ETag (s3rver keeps it quoted) satisfy the condition? Throws S3's answer when not. */
export function checkCondition(condition: WriteCondition, key: string, storedEtag: string | null): void {
  if (condition.absent && storedEtag !== null) throw preconditionFailed('If-None-Match');
  if (condition.etag !== null) {
    if (storedEtag === null) throw noSuchKey(key);
    if (unquoted(storedEtag) !== condition.etag) throw preconditionFailed('If-Match');
  }
}

/** A conditional write in flight: told when another write or delete of its key lands first. */
export interface Watch {
  conflicted: boolean;
}

/** Per-key serialisation of checks and final writes, and the conditional writes in flight per key. */
export class KeyCoordinator {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly watches = new Map<string, Set<Watch>>();

  /** Runs `step` after every earlier step of the same key has finished. */
  async exclusive<T>(id: string, step: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(id) ?? Promise.resolve();
    const run = previous.then(step, step);
    const tail = run.catch(() => undefined);
    this.tails.set(id, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(id) === tail) this.tails.delete(id);
    }
  }

  watch(id: string): Watch {
    const watch: Watch = { conflicted: false };
    const set = this.watches.get(id) ?? new Set<Watch>();
    set.add(watch);
    this.watches.set(id, set);
    return watch;
  }

  unwatch(id: string, watch: Watch | null): void {
    if (!watch) return;
    const set = this.watches.get(id);
    set?.delete(watch);
    if (set?.size === 0) this.watches.delete(id);
  }

  /** The key changed (a write or delete landed): every other conditional write in flight on it conflicts. */
  changed(id: string, by: Watch | null): void {
    for (const watch of this.watches.get(id) ?? []) if (watch !== by) watch.conflicted = true;
  }
}
