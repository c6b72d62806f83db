/**
 * The bootstrap key after the deploy. On AWS it is whatever the deploy left in its secret (the
 * installer's custom resource made and installed one, the rotation schedule rotated it). Locally an
 * operator may name it instead (ADMIN_API_KEY, CONTRACT §2/§9), and a key kept from an earlier start
 * stays the key: when the one named differs from the secret's current value, it is put in a new
 * AWSPENDING version and the secret rotated to it, as an operator does on AWS with
 * `aws secretsmanager put-secret-value --version-stages AWSPENDING` and `rotate-secret` with that
 * version's token (the rotation function keeps a pending value that is a key, installs it and
 * retires the old one).
 */
import type { LocalDeployment } from '../cloud-assembly.ts';
import { rotate } from './rotation.ts';
import type { LocalSecretsManager } from './secrets-manager.ts';

export async function settleBootstrapKey(
  deployment: Pick<LocalDeployment, 'secrets' | 'deploySteps'>,
  secrets: LocalSecretsManager,
  invoke: (functionId: string, event: unknown) => Promise<unknown>,
  named: string | null,
): Promise<string | null> {
  const secretArn = [...deployment.secrets].find(([, kind]) => kind === 'bootstrapKey')?.[0];
  if (secretArn === undefined) return null;
  if (named !== null && named !== secrets.valueOf(secretArn)) {
    const schedule = deployment.deploySteps.find(
      (step) => step.action.kind === 'rotationSchedule' && step.action.secretArn === secretArn,
    );
    if (schedule?.action.kind !== 'rotationSchedule')
      throw new Error('A bootstrap key is named (ADMIN_API_KEY), but the template has no rotation for its secret');
    const functionId = schedule.action.functionId;
    await rotate({ secrets, secretArn, invoke: (event) => invoke(functionId, event) }, { staged: named }).catch(
      (error: Error) => {
        throw new Error(`The bootstrap key named could not be rotated in: ${error.message}`);
      },
    );
  }
  return secrets.valueOf(secretArn);
}
