/**
 * The bootstrap key an operator names for local mode (ADMIN_API_KEY, or the file an earlier start
 * kept) is checked at start with authentication's rule: `trb_key_` and 43 base64url characters. A key
 * of another shape was let through and failed the deploy's rotation with Secrets Manager's words.
 * The key material sealing stored secrets (SECRETS_KEY) is checked at start too, as the functions
 * check it at first use (32 characters at least).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { namedAdminKey, resolveSecretsKey } from '../../local/provision.ts';

const wellFormed = `trb_key_${'Ab3_-'.repeat(8)}xyz`;
const directories: string[] = [];
const dataDir = () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'admin-key-'));
  directories.push(directory);
  return directory;
};
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('the bootstrap key an operator names', () => {
  it('is taken as named when it has the shape of an API key', () => {
    expect(wellFormed).toHaveLength(51);
    expect(namedAdminKey(dataDir(), wellFormed)).toBe(wellFormed);
  });

  it.each([
    ['32 characters after the prefix', `trb_key_${'a'.repeat(32)}`],
    ['44 characters after the prefix', `trb_key_${'a'.repeat(44)}`],
    ['a character base64url has not', `trb_key_${'a'.repeat(42)}=`],
    ['another prefix', `trb_tok_${'a'.repeat(43)}`],
    ['a trailing space', `${wellFormed} `],
  ])('is refused at start with %s, in words that say what a key is', (_, key) => {
    expect(() => namedAdminKey(dataDir(), key)).toThrow(
      'ADMIN_API_KEY must be "trb_key_" followed by 43 characters of A-Z, a-z, 0-9, "_" and "-"',
    );
  });

  it('kept in DATA_DIR by an earlier start, is checked the same way, and the file named', () => {
    const directory = dataDir();
    const file = path.join(directory, 'admin-api-key');
    writeFileSync(file, `${wellFormed}\n`);
    expect(namedAdminKey(directory, undefined)).toBe(wellFormed);
    writeFileSync(file, 'trb_key_edited-by-hand\n');
    expect(() => namedAdminKey(directory, undefined)).toThrow(`${file} must be "trb_key_" followed by 43 characters`);
  });

  it('is none when nothing names one (the deploy’s own stays)', () => {
    expect(namedAdminKey(dataDir(), undefined)).toBeNull();
    expect(namedAdminKey(dataDir(), '')).toBeNull();
  });
});

describe('the secrets key an operator names', () => {
  it('is refused at start when shorter than 32 characters, and taken from 32 on', () => {
    expect(() => resolveSecretsKey(dataDir(), 'x'.repeat(31))).toThrow('SECRETS_KEY must be at least 32 characters');
    expect(() => resolveSecretsKey(dataDir(), `${' '.repeat(10)}${'x'.repeat(30)}`)).toThrow(
      'SECRETS_KEY must be at least 32 characters',
    );
    expect(resolveSecretsKey(dataDir(), 'x'.repeat(32))).toBe('x'.repeat(32));
  });

  it('kept in DATA_DIR, is checked the same way, and the file named', () => {
    const directory = dataDir();
    const file = path.join(directory, 'secrets-key');
    writeFileSync(file, 'short\n');
    expect(() => resolveSecretsKey(directory, undefined)).toThrow(`${file} must be at least 32 characters`);
  });

  it('is generated and kept when none is named: 32 random bytes, the same at the next start', () => {
    const directory = dataDir();
    const generated = resolveSecretsKey(directory, undefined);
    expect(generated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(resolveSecretsKey(directory, undefined)).toBe(generated);
  });
});
