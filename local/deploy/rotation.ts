/**
 * What Secrets Manager does with a rotation function, locally:
 *  - a rotation ("How rotation works": https://docs.aws.amazon.com/secretsmanager/latest/userguide/rotate-secrets_how.html):
 *    a new version labelled AWSPENDING, named by a fresh client request token, then the function
 *    invoked for each step in turn, createSecret, setSecret, testSecret, finishSecret, with
 *    `{Step, SecretId, ClientRequestToken}`; afterwards AWSCURRENT must be on the new version;
 *  - a configuration test, which an AWS::SecretsManager::RotationSchedule with
 *    RotateImmediatelyOnUpdate false makes in place of a rotation ("If you don't immediately rotate
 *    the secret, Secrets Manager tests the rotation configuration by running the testSecret step of
 *    the Lambda rotation function. The test creates an AWSPENDING version of the secret and then
 *    removes it": RotateImmediately in https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_RotateSecret.html,
 *    and RotateImmediatelyOnUpdate in
 *    https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-secretsmanager-rotationschedule.html).
 * A step that fails fails the rotation; the version it made is removed, so that the next start's
 * rotation begins from the secret as it was.
 */
import { randomUUID } from 'node:crypto';
import { current, type LocalSecretsManager } from './secrets-manager.ts';

export type RotationStep = 'createSecret' | 'setSecret' | 'testSecret' | 'finishSecret';
export const rotationSteps: RotationStep[] = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'];

export interface RotationEvent {
  Step: RotationStep;
  SecretId: string;
  ClientRequestToken: string;
}

export interface Rotation {
  secrets: LocalSecretsManager;
  secretArn: string;
  /** Invokes the rotation function (its errors fail the step). */
  invoke(event: RotationEvent): Promise<unknown>;
}

/** A rotation, all four steps; `staged` is a value an operator put in the pending version beforehand. */
export async function rotate(rotation: Rotation, options: { staged?: string } = {}): Promise<string> {
  const token = randomUUID();
  rotation.secrets.startVersion(rotation.secretArn, token, options.staged ?? null);
  try {
    for (const step of rotationSteps)
      await rotation.invoke({ Step: step, SecretId: rotation.secretArn, ClientRequestToken: token });
    if (rotation.secrets.versionWith(rotation.secretArn, current) !== token)
      throw new Error('finishSecret did not make the new version AWSCURRENT');
    return token;
  } catch (error) {
    rotation.secrets.removeVersion(rotation.secretArn, token);
    throw error;
  }
}

/** The configuration test: testSecret on a fresh AWSPENDING version, removed afterwards whatever happened. */
export async function testRotation(rotation: Rotation): Promise<void> {
  const token = randomUUID();
  rotation.secrets.startVersion(rotation.secretArn, token);
  try {
    await rotation.invoke({ Step: 'testSecret', SecretId: rotation.secretArn, ClientRequestToken: token });
  } finally {
    rotation.secrets.removeVersion(rotation.secretArn, token);
  }
}
