/**
 * List cursors: opaque to clients, and only ever the ones this service issued. A cursor is
 * `<payload>.<tag>` (base64url): the payload is where the list continues (a DynamoDB key, or a
 * sequence number), the tag an HMAC-SHA256 over the list it belongs to and the payload. A cursor
 * that was crafted, altered, truncated or issued by another list fails the tag and is a 400, before
 * anything of it reaches DynamoDB.
 *
 * The MAC key is derived (HKDF-SHA256) for this purpose alone: on AWS from the CursorKey secret (a
 * secret of its own, so that functions that only list never hold the key that opens stored
 * secrets), in local mode from the platform's key material, SECRETS_KEY.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../domain/errors.ts';
import { keyFromMaterial } from '../key-material.ts';

const cursorKey = /* @__PURE__ */ keyFromMaterial(
  'cursor key',
  { env: 'SECRETS_KEY', secretArnEnv: 'CURSOR_KEY_SECRET_ARN' },
  (material) => Buffer.from(hkdfSync('sha256', material, '', 'tributary list cursors v1', 32)),
);

/** 128 bits of tag: forging one is out of reach, and cursors stay short. */
const tagBytes = 16;

async function tagOf(list: string, payload: string): Promise<Buffer> {
  return createHmac('sha256', await cursorKey())
    .update(`${list}\n${payload}`)
    .digest()
    .subarray(0, tagBytes);
}

/** A cursor for `list` (a string naming the list exactly, e.g. its index and partition) that continues at `position`. */
export async function sealCursor(list: string, position: unknown): Promise<string> {
  const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
  return `${payload}.${(await tagOf(list, payload)).toString('base64url')}`;
}

/** The 400 VALIDATION_ERROR of a cursor this list did not issue (or that holds what this list cannot continue from). */
export const refusedCursor = () =>
  invalid('Invalid cursor', [{ path: 'cursor', message: 'Not a cursor returned by this list' }]);

/** Where a cursor issued for `list` continues; 400 VALIDATION_ERROR for any cursor this list did not issue. */
export async function openCursor(list: string, cursor: string): Promise<unknown> {
  const fail = refusedCursor;
  const [payload, tag, ...rest] = cursor.split('.');
  if (!payload || !tag || rest.length > 0) throw fail();
  const given = Buffer.from(tag, 'base64url');
  const expected = await tagOf(list, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw fail();
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
}
