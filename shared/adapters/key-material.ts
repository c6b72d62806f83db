/**
 * Key material a function reads once per instance: an environment variable in local mode, a Secrets
 * Manager secret on AWS. The Secrets Manager client is loaded on first use only, so a function that
 * never needs the key never pays for it at cold start. A failed read is retried by the next call.
 */
import { callLimits, smallCallLimits } from './aws-http.ts';

/** The key material is a random string of at least this many characters (surrounding spaces aside). */
export const keyMaterialMinLength = 32;

function checked(value: string | undefined, name: string): string {
  const material = (value ?? '').trim();
  if (material.length < keyMaterialMinLength)
    throw new Error(`The ${name} must be at least ${keyMaterialMinLength} characters long`);
  return material;
}

export async function readSecretString(secretArn: string): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const secret = await new SecretsManagerClient({ requestHandler: callLimits(smallCallLimits) }).send(
    new GetSecretValueCommand({ SecretId: secretArn }),
  );
  return secret.SecretString ?? '';
}

/**
 * A key made once per instance from the first source that is set: `env` (the material itself) or
 * `secretArnEnv` (a secret holding it).
 */
export function keyFromMaterial(
  name: string,
  sources: { env: string; secretArnEnv: string },
  derive: (material: string) => Buffer,
): () => Promise<Buffer> {
  let key: Promise<Buffer> | undefined;
  return () => {
    key ??= (async () => {
      const arn = process.env[sources.secretArnEnv];
      const value = process.env[sources.env] || (arn ? await readSecretString(arn) : undefined);
      if (value === undefined)
        throw new Error(`Environment variable ${sources.env} or ${sources.secretArnEnv} is required`);
      return derive(checked(value, name));
    })();
    key.catch(() => {
      key = undefined;
    });
    return key;
  };
}
