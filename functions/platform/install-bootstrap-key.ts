/**
 * CloudFormation custom resource: makes the stack's bootstrap secret hold a Tributary API key and
 * installs that key's hash as the PlatformAdmin bootstrap key. A secret that already holds a key
 * (from an earlier deploy, or set by an operator to rotate it) is kept and re-installed.
 */
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { callLimits, smallCallLimits } from '#shared/adapters/aws-http.ts';
import { installBootstrapKey } from '#shared/adapters/dynamo/api-keys.ts';
import { requiredEnv } from '#shared/config.ts';
import { isApiKey } from '#shared/domain/identity/bootstrap-key.ts';
import { displayPrefix, hashToken, issueToken } from '#shared/domain/tokens.ts';
import { logger } from '#shared/observability/logger.ts';
import { customResourceHandler } from '#shared/queue-handler.ts';

const secrets = new SecretsManagerClient({ requestHandler: callLimits(smallCallLimits) });

export const handler = customResourceHandler(async (event: CloudFormationCustomResourceEvent) => {
  const physicalResourceId = 'tributary-bootstrap-key';
  if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalResourceId };
  const secretId = requiredEnv('BOOTSTRAP_KEY_SECRET_ARN');
  const current = await secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
  let key = current.SecretString ?? '';
  if (!isApiKey(key)) {
    key = issueToken('apiKey').token;
    await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: key }));
    logger.info('Generated a new bootstrap key');
  }
  await installBootstrapKey(hashToken(key), displayPrefix(key));
  return { PhysicalResourceId: physicalResourceId };
});
