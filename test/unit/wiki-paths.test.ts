/**
 * Wiki paths and prefixes are parts of a DynamoDB sort key (at most 1,024 bytes): they are limited in
 * UTF-8 bytes as well as characters, and refused (400) before the repository is asked.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '#shared/domain/errors.ts';
import type { Principal } from '#shared/domain/principal.ts';
import { listDocuments, readDocument, type WikiRepository, writeDocument } from '#shared/domain/wiki/use-cases.ts';
import { listWikiQuery, wikiPathParams } from '#shared/http/schemas/wiki.ts';

const admin: Principal = { kind: 'platform', role: 'PlatformAdmin', userId: null, apiKeyId: 'k' };

/** A repository that records what reaches it. */
function recordingRepository(reached: string[]) {
  const repository: WikiRepository & { getTenant(): Promise<null> } = {
    getDocument: async (_, path) => {
      reached.push(path);
      return null;
    },
    putDocument: async (document) => {
      reached.push(document.path);
      return { created: true, document };
    },
    deleteDocument: async (_, path) => {
      reached.push(path);
      return false;
    },
    listPaths: async (_, prefix) => {
      reached.push(prefix);
      return { items: [], nextCursor: null };
    },
    getTenant: async () => null,
  };
  return repository;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'OK',
    (error: unknown) => (error instanceof DomainError ? error.code : String(error)),
  );
}

describe('wiki path limits', () => {
  // characters (UTF-16 units) / UTF-8 bytes: 341/1023, 512/1024, 500/1000 (the largest allowed), 512/512
  const tooLong = { 'euro ×341': '€'.repeat(341), 'emoji ×256': '😀'.repeat(256), 'a ×513': 'a'.repeat(513) };
  const fits = { 'euro ×333 + a': `${'€'.repeat(333)}a`, 'a ×512': 'a'.repeat(512), 'ü ×500': 'ü'.repeat(500) };

  it.each(Object.entries(tooLong))('refuses %s as a path and as a prefix, reaching nothing', async (_, path) => {
    const reached: string[] = [];
    const deps = recordingRepository(reached);
    expect(await codeOf(readDocument(deps, admin, path, undefined))).toBe('VALIDATION_ERROR');
    expect(await codeOf(writeDocument(deps, admin, path, undefined, 'x'))).toBe('VALIDATION_ERROR');
    expect(await codeOf(listDocuments(deps, admin, { prefix: path, limit: 10 }))).toBe('VALIDATION_ERROR');
    expect(reached).toEqual([]);
    expect(wikiPathParams.safeParse({ path }).success).toBe(false);
    expect(listWikiQuery.safeParse({ prefix: path }).success).toBe(false);
  });

  it.each(Object.entries(fits))('accepts %s', async (_, path) => {
    const reached: string[] = [];
    const deps = recordingRepository(reached);
    expect(await codeOf(writeDocument(deps, admin, path, undefined, 'x'))).toBe('OK');
    expect(await codeOf(listDocuments(deps, admin, { prefix: path, limit: 10 }))).toBe('OK');
    expect(reached).toEqual([path, path]);
    expect(wikiPathParams.safeParse({ path }).success).toBe(true);
  });
});
