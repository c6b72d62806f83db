/**
 * The bootstrap key's rotation, the four steps Secrets Manager runs a rotation function through
 * (`aws secretsmanager rotate-secret`): the new key is made and kept as the secret's pending version,
 * checked, then installed (which retires the old key) and made the secret's current version.
 * Until that last step the old key works and the secret holds it; after it, only the new one does.
 * Each step may run again (Secrets Manager retries a failed step): each is idempotent.
 */
import { displayPrefix, hashToken, issueToken, isWellFormedToken } from '../tokens.ts';

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';

/** The secret holding the bootstrap key, by version. */
export interface BootstrapSecret {
  /** The stages each version holds (AWSCURRENT, AWSPENDING, …). */
  versionStages(): Promise<Record<string, string[]>>;
  /** The value of a version, or null when it has none. */
  valueOf(versionId: string): Promise<string | null>;
  /** Stores `value` as version `versionId`, staged AWSPENDING. */
  putPending(versionId: string, value: string): Promise<void>;
  /** Moves AWSCURRENT from version `from` to version `to`. */
  makeCurrent(to: string, from: string): Promise<void>;
}

export interface BootstrapRotationDeps {
  secret: BootstrapSecret;
  /** Makes `hash` the bootstrap key, retiring the previous one (idempotent). */
  installBootstrapKey(hash: string, prefix: string): Promise<void>;
}

/** A value that is a Tributary API key, as authentication accepts them (trb_key_ and 43 base64url characters). */
export const isApiKey = (value: string | null): value is string => isWellFormedToken('apiKey', value);

/**
 * Run one step of a rotation.
 * Input: the step and the version Secrets Manager rotates to (its client request token).
 *  1. createSecret: a new key is generated and stored as that version, pending (once).
 *  2. setSecret: nothing; the key is installed when it becomes current, so the old one works until then.
 *  3. testSecret: the pending value must be a well-formed key.
 *  4. finishSecret: the key is installed (the old one stops working), then made current.
 */
export async function rotateBootstrapKey(deps: BootstrapRotationDeps, step: RotationStep, versionId: string) {
  const stages = await deps.secret.versionStages();
  const of = stages[versionId];
  if (!of) throw new Error('The secret has no version for this rotation');
  const current = Object.entries(stages).find(([, held]) => held.includes('AWSCURRENT'))?.[0];
  if (of.includes('AWSCURRENT')) {
    // Done already (a repeated step): make sure the current key is the one installed.
    const value = await deps.secret.valueOf(versionId);
    if (step === 'finishSecret' && isApiKey(value))
      await deps.installBootstrapKey(hashToken(value), displayPrefix(value));
    return;
  }
  if (!of.includes('AWSPENDING')) throw new Error('The version being rotated to is not pending');
  switch (step) {
    case 'createSecret':
      if (!isApiKey(await deps.secret.valueOf(versionId).catch(() => null)))
        await deps.secret.putPending(versionId, issueToken('apiKey').token);
      return;
    case 'setSecret':
      return;
    case 'testSecret':
      if (!isApiKey(await deps.secret.valueOf(versionId))) throw new Error('The pending value is not an API key');
      return;
    case 'finishSecret': {
      const value = await deps.secret.valueOf(versionId);
      if (!isApiKey(value)) throw new Error('The pending value is not an API key');
      await deps.installBootstrapKey(hashToken(value), displayPrefix(value));
      if (current) await deps.secret.makeCurrent(versionId, current);
      return;
    }
  }
}
