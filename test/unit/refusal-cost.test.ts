/**
 * Refusals are cheap: a key or token that cannot be one is refused before any read, and one that is
 * well-formed but unknown costs at most one read per cache window however often it is sent (the
 * ports count every read).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rememberingMisses, TtlCache } from '#shared/adapters/dynamo/ingest-cache.ts';
import { DomainError } from '#shared/domain/errors.ts';
import { authenticate, type CredentialLookup } from '#shared/domain/identity/authenticate.ts';
import { issueToken, isWellFormedToken } from '#shared/domain/tokens.ts';

/** A key store that knows no key, counting its reads. */
function emptyKeyStore(wrap: (lookup: CredentialLookup['findApiKeyByHash']) => CredentialLookup['findApiKeyByHash']) {
  let reads = 0;
  const deps: CredentialLookup = {
    findApiKeyByHash: wrap(async () => {
      reads++;
      return null;
    }),
    getUser: async () => null,
    touchApiKey: async () => undefined,
  };
  return { deps, reads: () => reads };
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return 'none';
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error);
  }
}

const random43 = `${'Ab0_-'.repeat(8)}xyz`;

describe('a malformed API key', () => {
  it.each([
    ['no key', undefined],
    ['the wrong prefix', `trb_ing_${random43}`],
    ['a prefix only', 'trb_key_'],
    ['one character short', `trb_key_${random43.slice(1)}`],
    ['one character long', `trb_key_${random43}a`],
    ['a character outside base64url', `trb_key_${random43.slice(1)}+`],
    ['padding', `trb_key_${random43.slice(1)}=`],
    ['a huge header', `trb_key_${'a'.repeat(100_000)}`],
  ])('with %s is refused 401 without a read', async (_, key) => {
    const store = emptyKeyStore((lookup) => lookup);
    expect(await codeOf(authenticate(store.deps, key))).toBe('UNAUTHORIZED');
    expect(store.reads()).toBe(0);
  });

  it('is told apart from every key the service issues', () => {
    for (let i = 0; i < 200; i++) expect(isWellFormedToken('apiKey', issueToken('apiKey').token)).toBe(true);
    expect(isWellFormedToken('apiKey', issueToken('ingestToken').token)).toBe(false);
    expect(isWellFormedToken('ingestToken', issueToken('ingestToken').token)).toBe(true);
  });
});

describe('an unknown API key', () => {
  it('costs one read per cache window however often it is sent, concurrently or one after another', async () => {
    let now = 1_000_000;
    const store = emptyKeyStore((lookup) => rememberingMisses(lookup, () => now));
    const key = issueToken('apiKey').token;
    const together = await Promise.all(Array.from({ length: 20 }, () => codeOf(authenticate(store.deps, key))));
    expect(new Set(together)).toEqual(new Set(['UNAUTHORIZED']));
    for (let i = 0; i < 100; i++) expect(await codeOf(authenticate(store.deps, key))).toBe('UNAUTHORIZED');
    expect(store.reads()).toBe(1);
    // Past the window (INGEST_CACHE_SECONDS, 2 s by default) it is read again, once.
    now += 2001;
    for (let i = 0; i < 10; i++) await codeOf(authenticate(store.deps, key));
    expect(store.reads()).toBe(2);
    // Another unknown key is read on its own.
    await codeOf(authenticate(store.deps, issueToken('apiKey').token));
    expect(store.reads()).toBe(3);
  });

  it('never keeps a key it found: a revoked key is refused on the very next request', async () => {
    let known = true;
    let reads = 0;
    const lookup = rememberingMisses(async (hash: string) => {
      reads++;
      return known ? { hash } : null;
    });
    expect(await lookup('h')).toEqual({ hash: 'h' });
    expect(await lookup('h')).toEqual({ hash: 'h' });
    known = false;
    expect(await lookup('h')).toBeNull();
    expect(reads).toBe(3);
  });
});

describe('an unknown source on the ingest path', () => {
  it('costs one read per cache window however often it is sent', async () => {
    const cache = new TtlCache<{ id: string } | null>();
    let reads = 0;
    const find = (id: string) =>
      cache.get(id, async () => {
        reads++;
        return null;
      });
    const id = randomUUID();
    await Promise.all(Array.from({ length: 20 }, () => find(id)));
    for (let i = 0; i < 100; i++) expect(await find(id)).toBeNull();
    expect(reads).toBe(1);
  });
});
