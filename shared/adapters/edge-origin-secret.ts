/**
 * The edge's origin secret in Secrets Manager (EDGE_ORIGIN_SECRET_ARN): its current value and, after
 * a rotation, its previous one, which CloudFront may still send until the stack is deployed with the
 * new one (shared/http/edge-origin.ts).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { callLimits, smallCallLimits } from './aws-http.ts';

const secrets = new SecretsManagerClient({ requestHandler: callLimits(smallCallLimits) });

async function valueAt(secretId: string, stage: 'AWSCURRENT' | 'AWSPREVIOUS'): Promise<string | null> {
  try {
    const value = await secrets.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }));
    return value.SecretString ?? null;
  } catch (error) {
    // A secret never rotated has no previous version.
    if (stage === 'AWSPREVIOUS' && error instanceof Error && error.name === 'ResourceNotFoundException') return null;
    throw error;
  }
}

export async function originSecretValues(secretId: string): Promise<string[]> {
  const values = await Promise.all([valueAt(secretId, 'AWSCURRENT'), valueAt(secretId, 'AWSPREVIOUS')]);
  return values.filter((value): value is string => value !== null);
}
