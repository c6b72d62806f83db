/**
 * Signing secrets, opened for verification: sealed at rest on the source item, opened here with the
 * platform key, and kept opened in memory only as long as the source itself is cached.
 */
import type { Source } from '../domain/connections/model.ts';
import { signingSecretContext } from '../domain/connections/security.ts';
import { secretBox } from './secret-box.ts';

const opened = new Map<string, { value: string; expires: number }>();

/** The source's secrets that are valid now (a rotated-out secret counts until its grace time ends). */
export async function openSigningSecrets(source: Source, now = new Date()): Promise<string[]> {
  const secrets = source.security.signature?.secrets ?? [];
  const valid = secrets.filter((secret) => !secret.expires_at || secret.expires_at > now.toISOString());
  return Promise.all(
    valid.map(async (secret) => {
      const hit = opened.get(secret.sealed);
      if (hit && hit.expires > Date.now()) return hit.value;
      const value = await secretBox.open(secret.sealed, signingSecretContext(source.source_id));
      if (opened.size > 10_000) opened.clear();
      opened.set(secret.sealed, { value, expires: Date.now() + 60_000 });
      return value;
    }),
  );
}
