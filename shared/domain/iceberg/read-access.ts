/**
 * Which stores vend credentials to a catalog client: only one reached through the tenant's own role,
 * whose session the platform can narrow to one table's prefix and to reading. The platform's own
 * access (its role for tenant buckets) is never handed out, nor a tenant's access key (a secret the
 * tenant gave the platform, for the platform); an anonymous store needs none.
 */
import type { StoreCredentials } from '../tenants/store-access.ts';

export type VendedCredentials =
  | { kind: 'tenantRole'; roleArn: string; externalId: string }
  | { kind: 'none'; reason: string };

export function vendedCredentialsOf(credentials: StoreCredentials): VendedCredentials {
  switch (credentials.kind) {
    case 'tenantRole':
      return { kind: 'tenantRole', roleArn: credentials.roleArn, externalId: credentials.externalId };
    case 'keys':
      return { kind: 'none', reason: 'the store is reached with access keys, which are not handed out' };
    case 'platform':
      return { kind: 'none', reason: 'the store is reached with the platform’s own access, which is not handed out' };
    case 'anonymous':
      return { kind: 'none', reason: 'the store is read without credentials' };
  }
}
