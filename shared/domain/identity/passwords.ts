import { randomBytes, scrypt } from 'node:crypto';

/**
 * Passwords are stored as scrypt hashes (N=2^15, r=8, p=1: about 50 ms and 32 MiB per hash), in a
 * self-describing string (scrypt$N$r$p$salt$key) so that the parameters can be raised later without
 * breaking old hashes. Nothing signs in with a password yet (API keys do); whatever does will verify
 * against this string.
 */
const N = 2 ** 15;
const r = 8;
const p = 1;
const keyLength = 64;

function derive(password: string, salt: Buffer, cost: number, blockSize: number, parallelism: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password,
      salt,
      keyLength,
      { N: cost, r: blockSize, p: parallelism, maxmem: 64 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}
