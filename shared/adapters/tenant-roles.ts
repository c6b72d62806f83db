/**
 * Checks of the role a tenant's store names, at registration and at every change of its options
 * (checkStoreRole): the platform's own account (PLATFORM_ACCOUNT_ID, set by the stack) and STS
 * AssumeRole tried with the external ids the domain asks about. STS is loaded on first use only.
 */
import type { TenantRoleChecks } from '../domain/tenants/object-stores.ts';
import { callLimits, smallCallLimits } from './aws-http.ts';
import { storeFailureOf } from './s3/store-failure-codes.ts';

/** STS refuses a role it will not let this caller assume with AccessDenied, whatever the reason (even a role that does not exist). */
const refusedByTrustPolicy = new Set(['AccessDenied', 'AccessDeniedException']);

export const tenantRoleChecks: TenantRoleChecks = {
  platformAccount: () => process.env.PLATFORM_ACCOUNT_ID || null,
  platformAccountRolesAllowed: () => process.env.ALLOW_PLATFORM_ACCOUNT_ROLES === 'true',
  async assumable(roleArn, sessionName, externalId) {
    const { AssumeRoleCommand, STSClient } = await import('@aws-sdk/client-sts');
    try {
      await new STSClient({ requestHandler: callLimits(smallCallLimits) }).send(
        new AssumeRoleCommand({
          RoleArn: roleArn,
          RoleSessionName: sessionName,
          DurationSeconds: 900,
          ...(externalId === null ? {} : { ExternalId: externalId }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof Error && refusedByTrustPolicy.has(error.name)) return false;
      // STS unreachable or failing, or no credentials to ask it with: the role could not be checked (422).
      throw storeFailureOf(error);
    }
  },
};
