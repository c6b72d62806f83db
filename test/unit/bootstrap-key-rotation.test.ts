/**
 * Rotating the bootstrap key (`aws secretsmanager rotate-secret`), through the rotation's ports: the
 * secret by version, as Secrets Manager keeps it, and the installed key as authentication reads it.
 */
import { describe, expect, it } from 'vitest';
import {
  type BootstrapRotationDeps,
  type RotationStep,
  rotateBootstrapKey,
} from '#shared/domain/identity/bootstrap-key.ts';
import { hashToken } from '#shared/domain/tokens.ts';

const oldKey = `trb_key_${'o'.repeat(43)}`;

/** Secrets Manager's versions and stages, and the one installed bootstrap key (a new one retires the old). */
function memory() {
  const versions = new Map<string, { value: string | null; stages: string[] }>([
    ['v1', { value: oldKey, stages: ['AWSCURRENT'] }],
  ]);
  let installed = hashToken(oldKey);
  const deps: BootstrapRotationDeps = {
    secret: {
      async versionStages() {
        return Object.fromEntries([...versions].map(([id, version]) => [id, [...version.stages]]));
      },
      async valueOf(id) {
        return versions.get(id)?.value ?? null;
      },
      async putPending(id, value) {
        const version = versions.get(id);
        if (version) version.value = value;
      },
      async makeCurrent(to, from) {
        const source = versions.get(from);
        const target = versions.get(to);
        if (!source || !target) throw new Error('no such version');
        source.stages = source.stages.filter((stage) => stage !== 'AWSCURRENT').concat('AWSPREVIOUS');
        target.stages = ['AWSCURRENT'];
      },
    },
    async installBootstrapKey(hash) {
      installed = hash;
    },
  };
  /** What rotate-secret does first: a new version, pending, with no value yet. */
  const startRotation = (id: string) => versions.set(id, { value: null, stages: ['AWSPENDING'] });
  const current = () => [...versions.values()].find((version) => version.stages.includes('AWSCURRENT'))?.value;
  const accepts = (key: string | null | undefined) => key !== null && key !== undefined && hashToken(key) === installed;
  return { deps, startRotation, current, accepts };
}

const steps: RotationStep[] = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'];

describe('rotating the bootstrap key', () => {
  it('puts a new key in the secret and makes it the only one accepted; the old works until the last step', async () => {
    // Prepare
    const { deps, startRotation, current, accepts } = memory();
    startRotation('v2');
    // Act, step by step
    const seen: { step: string; oldAccepted: boolean; secretHoldsOld: boolean }[] = [];
    for (const step of steps) {
      await rotateBootstrapKey(deps, step, 'v2');
      seen.push({ step, oldAccepted: accepts(oldKey), secretHoldsOld: current() === oldKey });
    }
    // Assess
    expect(seen).toEqual([
      { step: 'createSecret', oldAccepted: true, secretHoldsOld: true },
      { step: 'setSecret', oldAccepted: true, secretHoldsOld: true },
      { step: 'testSecret', oldAccepted: true, secretHoldsOld: true },
      { step: 'finishSecret', oldAccepted: false, secretHoldsOld: false },
    ]);
    expect(current()).toMatch(/^trb_key_[A-Za-z0-9_-]{43}$/);
    expect(accepts(current())).toBe(true);
  });

  it('repeats any step without harm (Secrets Manager retries), and a second rotation replaces the key again', async () => {
    const { deps, startRotation, current, accepts } = memory();
    startRotation('v2');
    for (const step of steps) {
      await rotateBootstrapKey(deps, step, 'v2');
      await rotateBootstrapKey(deps, step, 'v2');
    }
    const second = current();
    expect(accepts(second)).toBe(true);
    startRotation('v3');
    for (const step of steps) await rotateBootstrapKey(deps, step, 'v3');
    expect({ changed: current() !== second, oldAccepted: accepts(second), newAccepted: accepts(current()) }).toEqual({
      changed: true,
      oldAccepted: false,
      newAccepted: true,
    });
  });

  it('refuses a version that is not being rotated to, changing nothing', async () => {
    const { deps, current, accepts } = memory();
    await expect(rotateBootstrapKey(deps, 'finishSecret', 'nope')).rejects.toThrow(/no version/);
    expect({ current: current(), accepted: accepts(oldKey) }).toEqual({ current: oldKey, accepted: true });
  });
});
