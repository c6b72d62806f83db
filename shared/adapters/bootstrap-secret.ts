/** The bootstrap key's secret in Secrets Manager (BOOTSTRAP_KEY_SECRET_ARN), by version: what its rotation reads and moves. */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { requiredEnv } from '../config.ts';
import type { BootstrapSecret } from '../domain/identity/bootstrap-key.ts';
import { callLimits, smallCallLimits } from './aws-http.ts';

const secrets = new SecretsManagerClient({ requestHandler: callLimits(smallCallLimits) });
const secretId = () => requiredEnv('BOOTSTRAP_KEY_SECRET_ARN');

export const bootstrapSecret: BootstrapSecret = {
  async versionStages() {
    const described = await secrets.send(new DescribeSecretCommand({ SecretId: secretId() }));
    return described.VersionIdsToStages ?? {};
  },
  async valueOf(versionId) {
    try {
      const value = await secrets.send(new GetSecretValueCommand({ SecretId: secretId(), VersionId: versionId }));
      return value.SecretString ?? null;
    } catch (error) {
      if ((error as Error).name === 'ResourceNotFoundException') return null;
      throw error;
    }
  },
  async putPending(versionId, value) {
    await secrets.send(
      new PutSecretValueCommand({
        SecretId: secretId(),
        ClientRequestToken: versionId,
        SecretString: value,
        VersionStages: ['AWSPENDING'],
      }),
    );
  },
  async makeCurrent(to, from) {
    await secrets.send(
      new UpdateSecretVersionStageCommand({
        SecretId: secretId(),
        VersionStage: 'AWSCURRENT',
        MoveToVersionId: to,
        RemoveFromVersionId: from,
      }),
    );
  },
};
