/**
 * Read access to one data set's files for a client of the Iceberg catalog: where the tenant's store
 * is reached through the tenant's own role, a session of that role (assumed with the tenant's
 * external id) narrowed by a session policy to reading the data set's prefix, for 15 minutes (STS's
 * shortest). The decision whether a store vends credentials is the domain's (vendedCredentialsOf).
 */
import type { DataSet } from '../../domain/datasets/model.ts';
import type { TableReadAccess } from '../../domain/iceberg/catalog.ts';
import { vendedCredentialsOf } from '../../domain/iceberg/read-access.ts';
import { locationParts } from '../../domain/tenants/object-stores.ts';
import { connectStore } from '../../domain/tenants/store-access.ts';
import { callLimits, smallCallLimits } from '../aws-http.ts';
import { getObjectStore } from '../dynamo/object-stores.ts';
import { getTenant } from '../dynamo/tenants.ts';
import { secretBox } from '../secret-box.ts';
import { partitionOf, storeSessionPolicy } from './session-policies.ts';
import { storeFailureOf } from './store-failure-codes.ts';

const vendedSeconds = 900;

export async function tableReadAccess(dataSet: DataSet): Promise<TableReadAccess> {
  const store = dataSet.object_store_id ? await getObjectStore(dataSet.tenant_id, dataSet.object_store_id) : null;
  if (!store || !dataSet.storage_location) throw new Error(`Data set ${dataSet.data_set_id} has no storage yet`);
  const connection = await connectStore({ secrets: secretBox, getTenant }, store, 'read');
  const where = {
    region: connection.region ?? null,
    endpoint: connection.endpoint ?? null,
    // A custom endpoint is addressed path-style unless the store's options say otherwise (tenant-stores.ts).
    pathStyle: connection.forcePathStyle ?? (connection.endpoint ? true : null),
  };
  const vended = vendedCredentialsOf(connection.credentials);
  if (vended.kind === 'none') return { ...where, credentials: null, withoutCredentials: vended.reason };
  const { bucket, prefix } = locationParts(dataSet.storage_location);
  const policy = storeSessionPolicy({ bucket, prefix, access: 'read' }, partitionOf(connection.region), {
    handedOut: true,
  });
  const { AssumeRoleCommand, STSClient } = await import('@aws-sdk/client-sts');
  try {
    const result = await new STSClient({ requestHandler: callLimits(smallCallLimits) }).send(
      new AssumeRoleCommand({
        RoleArn: vended.roleArn,
        ExternalId: vended.externalId,
        RoleSessionName: connection.sessionName.slice(0, 64),
        Policy: JSON.stringify(policy),
        DurationSeconds: vendedSeconds,
      }),
    );
    const credentials = result.Credentials;
    if (!credentials?.AccessKeyId || !credentials.SecretAccessKey || !credentials.SessionToken)
      throw new Error('AssumeRole returned no credentials');
    return {
      ...where,
      credentials: {
        accessKeyId: credentials.AccessKeyId,
        secretAccessKey: credentials.SecretAccessKey,
        sessionToken: credentials.SessionToken,
        expiresAt: credentials.Expiration ?? new Date(Date.now() + vendedSeconds * 1000),
      },
      withoutCredentials: null,
    };
  } catch (error) {
    throw storeFailureOf(error);
  }
}
