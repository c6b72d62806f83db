/**
 * The session policies that scope every session the platform opens for a tenant's store (a tenant's
 * role, or the platform's own role for tenant buckets) to that store: its bucket, its prefix, and
 * reading only where the calling function only reads. STS grants a session what the role allows AND
 * what its session policy allows, so a call outside the store is refused by AWS, whatever asked for it.
 */
import type { StoreConnection } from '../../domain/tenants/store-access.ts';

export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: {
    Sid: string;
    Effect: 'Allow';
    Action: string[];
    Resource: string;
    Condition?: Record<string, Record<string, string[]>>;
  }[];
}

/**
 * The external id the platform passes when it assumes its own role for tenant buckets, which that
 * role's trust policy demands: no tenant's aws_external_id is ever this, so a store naming that role
 * as its own is refused by STS.
 */
export const tenantBucketsExternalId = 'tributary-tenant-buckets';

/** The AWS partition of a region (arn:aws-cn:… in China, arn:aws-us-gov:… in GovCloud). */
export function partitionOf(region: string | undefined): string {
  if (region?.startsWith('cn-')) return 'aws-cn';
  if (region?.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/**
 * `handedOut`: a session whose credentials go to a client (the catalog's vended credentials). It lists only under
 * the prefix, never the bucket without one: a client reads files its metadata names and needs no 404 for a missing
 * one, where the platform's own readers do (see StoreListing).
 */
export function storeSessionPolicy(
  scope: StoreConnection['scope'],
  partition: string,
  options: { handedOut?: boolean } = {},
): PolicyDocument {
  const bucketArn = `arn:${partition}:s3:::${scope.bucket}`;
  const writes = scope.access === 'readWrite';
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'StoreObjects',
        Effect: 'Allow',
        Action: writes ? ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'] : ['s3:GetObject'],
        Resource: `${bucketArn}/${scope.prefix ? `${scope.prefix}/` : ''}*`,
      },
      {
        Sid: 'StoreListing',
        Effect: 'Allow',
        Action: ['s3:ListBucket'],
        Resource: bucketArn,
        // IfExists: S3 answers a read of a missing object with 404 (not 403) when ListBucket is allowed,
        // a question it asks without a prefix; the platform's listings always name one under the store's.
        ...(scope.prefix
          ? {
              Condition: {
                [options.handedOut ? 'StringLike' : 'StringLikeIfExists']: { 's3:prefix': [`${scope.prefix}/*`] },
              },
            }
          : {}),
      },
      {
        // A bucket encrypted with a KMS key: S3 asks KMS with the caller's session, which this policy also bounds.
        Sid: 'StoreEncryption',
        Effect: 'Allow',
        Action: writes ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt'],
        Resource: '*',
        Condition: { StringLike: { 'kms:ViaService': ['s3.*.amazonaws.com'] } },
      },
    ],
  };
}
