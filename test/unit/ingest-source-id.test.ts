/**
 * A source id that is not well formed is an unknown source, in the documented order (no bearer token
 * → 401 first, then 404), and the table is never asked about it.
 */
import { describe, expect, it } from 'vitest';
import { DomainError } from '#shared/domain/errors.ts';
import { acceptIngest, type IngestDeps, type IngestRequest } from '#shared/domain/ingest/accept.ts';
import { statusOfCode } from '#shared/http/error-status.ts';

/** The code a request is refused with (null when it is accepted). */
async function refusalOf(deps: IngestDeps, request: IngestRequest): Promise<string | null> {
  try {
    await acceptIngest(deps, request);
    return null;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

function depsAskedFor(asked: string[]): IngestDeps {
  const never = () => {
    throw new Error('not reached for an unknown source');
  };
  return {
    findSource: async (sourceId) => {
      asked.push(sourceId);
      return null;
    },
    findTenant: never,
    signingSecrets: never,
    takeRateToken: never,
    claimDedupKey: never,
    releaseDedupKey: never,
    enqueue: never,
    maxBodyBytes: 1024,
    countAccepted: never,
    withdrawAccepted: never,
    countRefused: () => undefined,
    recordRejection: never,
    statusOf: (code) => statusOfCode[code],
  };
}

const request = (sourceId: string, authorization?: string) => ({
  sourceId,
  header: (name: string) => (name === 'authorization' ? authorization : undefined),
  headers: { authorization },
  feed: undefined,
  sourceIp: '192.0.2.1',
  body: Buffer.from('{}'),
});

describe('ingest of a source id that is not well formed', () => {
  const malformed = [
    'a'.repeat(2100),
    '',
    '€'.repeat(341),
    '../x',
    'B4F0C4A2-1D2E-4F3A-9B8C-7D6E5F4A3B2C',
    'not-a-uuid',
  ];

  it.each(malformed.map((id) => [id.slice(0, 40), id]))(
    '%s: 401 without a token, 404 with one, no table call',
    async (_, id) => {
      const asked: string[] = [];
      expect(await refusalOf(depsAskedFor(asked), request(id))).toBe('UNAUTHORIZED');
      expect(await refusalOf(depsAskedFor(asked), request(id, 'Bearer trb_ing_anything'))).toBe('NOT_FOUND');
      expect(asked).toEqual([]);
    },
  );

  it('asks the table about a well-formed id', async () => {
    const asked: string[] = [];
    const id = '4b0c2a3e-9f1d-4e7a-8c6b-5d4e3f2a1b0c';
    expect(await refusalOf(depsAskedFor(asked), request(id, 'Bearer trb_ing_anything'))).toBe('NOT_FOUND');
    expect(asked).toEqual([id]);
  });
});
