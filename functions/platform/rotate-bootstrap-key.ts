/**
 * The bootstrap key secret's rotation function: `aws secretsmanager rotate-secret --secret-id <it>`
 * replaces the bootstrap key for real (a new key in the secret, the old one no longer accepted).
 */
import * as z from 'zod';
import { bootstrapSecret } from '#shared/adapters/bootstrap-secret.ts';
import { installBootstrapKey } from '#shared/adapters/dynamo/api-keys.ts';
import { rotateBootstrapKey } from '#shared/domain/identity/bootstrap-key.ts';
import { logger } from '#shared/observability/logger.ts';
import { secretRotationHandler } from '#shared/queue-handler.ts';

const rotationEvent = z.object({
  SecretId: z.string(),
  ClientRequestToken: z.string(),
  Step: z.enum(['createSecret', 'setSecret', 'testSecret', 'finishSecret']),
});

export const handler = secretRotationHandler(async (event) => {
  const { Step, ClientRequestToken } = rotationEvent.parse(event);
  await rotateBootstrapKey({ secret: bootstrapSecret, installBootstrapKey }, Step, ClientRequestToken);
  logger.info('Bootstrap key rotation step', { step: Step });
});
