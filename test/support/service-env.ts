import { inject } from 'vitest';
import { localCredentials, localRegion } from '../../local/stand-ins.ts';

/**
 * Gives this test process the environment the local runtime gives its handlers, so a test can invoke
 * a handler module directly (for example several batch writers at once) against the same stand-ins.
 */
export function useServiceEnvironment(): void {
  Object.assign(process.env, inject('runtimeEnv'), {
    AWS_REGION: localRegion,
    AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
    TABLE_NAME: 'tributary',
    PLATFORM_BUCKET: 'tributary-platform',
    S3_FORCE_PATH_STYLE: 'true',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'WARN',
    ALLOWED_STORE_ENDPOINTS: 'loopback',
    // The tests that commit to a table in this process act as the committer does, which declares it writes.
    TENANT_STORES_ACCESS: 'readWrite',
  });
}
