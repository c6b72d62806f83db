/**
 * AES-256-GCM with the platform's data key. The key material comes from SECRETS_KEY (local mode keeps it in
 * DATA_DIR) or, on AWS, from the Secrets Manager secret named by SECRETS_KEY_SECRET_ARN, read once
 * per function instance (the Secrets Manager client is loaded then, not at every cold start of every
 * function that might seal something). One code path seals and opens in both places.
 * Format: v1.<iv>.<ciphertext>.<tag>, base64url parts; the context is the additional authenticated data.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretBox } from '../domain/secrets.ts';
import { keyFromMaterial } from './key-material.ts';

/** The AES key is the SHA-256 of the key material. */
const dataKey = keyFromMaterial(
  'secrets key',
  { env: 'SECRETS_KEY', secretArnEnv: 'SECRETS_KEY_SECRET_ARN' },
  (material) => createHash('sha256').update(material, 'utf8').digest(),
);

export const secretBox: SecretBox = {
  async seal(plaintext, context) {
    const key = await dataKey();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  },
  async open(sealed, context) {
    const [version, iv, ciphertext, tag] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || ciphertext === undefined || tag === undefined) {
      throw new Error('Unknown sealed value format');
    }
    const key = await dataKey();
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  },
};
