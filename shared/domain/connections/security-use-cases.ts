/** The use cases of a source's security settings: read, set, and rotate its signing secret. */
import { notFound } from '../errors.ts';
import type { Principal } from '../principal.ts';
import type { SecretBox } from '../secrets.ts';
import type { TenantIntent } from '../tenants/guard.ts';
import type { Source } from './model.ts';
import {
  applySecurityUpdate,
  defaultGraceSeconds,
  publicSecurity,
  rotateSecret,
  type SecurityUpdate,
  type SourceSecurity,
  signingSecretContext,
} from './security.ts';
import { type Deps, visibleConnection } from './use-cases.ts';

export interface SecurityDeps {
  getSource(sourceId: string): Promise<Source | null>;
  setSourceSecurity(sourceId: string, security: SourceSecurity, now: Date): Promise<void>;
  secrets: SecretBox;
}

async function sourceOfConnection(
  deps: Deps & SecurityDeps,
  principal: Principal,
  connectionId: string,
  intent: TenantIntent,
) {
  const connection = await visibleConnection(deps, principal, connectionId, intent);
  const source = await deps.getSource(connection.source_id);
  if (!source) throw notFound('Connection');
  return source;
}

export async function getSecurity(deps: Deps & SecurityDeps, principal: Principal, connectionId: string) {
  return publicSecurity((await sourceOfConnection(deps, principal, connectionId, 'read')).security);
}

/**
 * Set how the source authenticates and protects itself.
 * Input: the whole settings. Output: the settings, and the signing secret when one was generated
 * (shown this once). Secrets are sealed before they are stored.
 */
export async function putSecurity(
  deps: Deps & SecurityDeps,
  principal: Principal,
  connectionId: string,
  update: SecurityUpdate,
  now = new Date(),
) {
  const source = await sourceOfConnection(deps, principal, connectionId, 'write');
  const { security, generatedSecret } = await applySecurityUpdate(
    source.security,
    update,
    (secret) => deps.secrets.seal(secret, signingSecretContext(source.source_id)),
    now,
  );
  await deps.setSourceSecurity(source.source_id, security, now);
  return { ...publicSecurity(security), ...(generatedSecret ? { signing_secret: generatedSecret } : {}) };
}

/** A new signing secret (given or generated, shown once); the previous ones stay valid for the grace time. */
export async function rotateSigningSecret(
  deps: Deps & SecurityDeps,
  principal: Principal,
  connectionId: string,
  input: { secret?: string | undefined; grace_seconds?: number | undefined },
  now = new Date(),
) {
  const source = await sourceOfConnection(deps, principal, connectionId, 'write');
  const { security, secret } = await rotateSecret(
    source.security,
    input.secret,
    input.grace_seconds ?? defaultGraceSeconds,
    (value) => deps.secrets.seal(value, signingSecretContext(source.source_id)),
    now,
  );
  await deps.setSourceSecurity(source.source_id, security, now);
  return { signing_secret: secret };
}
