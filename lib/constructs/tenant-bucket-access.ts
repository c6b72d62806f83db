import { Stack, Tags } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { tenantBucketsExternalId } from '#shared/adapters/s3/session-policies.ts';
import { acknowledgeNagRule } from '../policy-checks.ts';

/**
 * The tag that marks the roles of the platform's own account its functions may assume: the deny on
 * own-account roles spares the one whose value names the function's access (bindAccess).
 */
export const tenantBucketRoleTag = {
  key: 'tributary:purpose',
  value: (access: 'read' | 'readWrite') => `tenant-buckets-${access}`,
};

/**
 * The platform's own roles for the buckets listed in tenantBuckets, which hold several tenants'
 * stores: one that reads, one that reads and writes. A function never reaches those buckets with its
 * own role: it assumes one of these with a session policy naming the one store it works on
 * (shared/adapters/s3/session-policies.ts), so a bug cannot reach another tenant's prefix. Functions
 * that only read may assume only the reader.
 */
export class TenantBucketAccess extends Construct {
  readonly reader: Role;
  readonly writer: Role;

  constructor(scope: Construct, id: string, props: { bucketNames: string[] }) {
    super(scope, id);
    const { partition } = Stack.of(this);
    const objects = props.bucketNames.map((name) => `arn:${partition}:s3:::${name}/*`);
    const buckets = props.bucketNames.map((name) => `arn:${partition}:s3:::${name}`);
    const role = (name: string, access: 'read' | 'readWrite', actions: string[], keyActions: string[]) => {
      const created = new Role(this, name, {
        description: `Tributary: ${name === 'Reader' ? 'reads' : 'reads and writes'} tenants' stores in tenantBuckets, one store per session`,
        // Assumed by the stack's functions (their own policies name this role), always with this external
        // id: no tenant's aws_external_id is it, so a store naming this role as its own is refused by STS.
        assumedBy: new AccountRootPrincipal().withConditions({
          StringEquals: { 'sts:ExternalId': tenantBucketsExternalId },
        }),
      });
      created.addToPolicy(new PolicyStatement({ actions, resources: objects }));
      created.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: buckets }));
      // A bucket encrypted with a customer managed key: S3 asks KMS with the session's credentials, so
      // the role may use a key through S3 only (and S3 only for the objects above). S3 asks from the
      // bucket's region (kms:ViaService is s3.<that region>), which a tenant's bucket need not share
      // with the stack: any region's S3, as the sessions' own policies say.
      created.addToPolicy(
        new PolicyStatement({
          actions: keyActions,
          resources: ['*'],
          conditions: { StringLike: { 'kms:ViaService': 's3.*.amazonaws.com' } },
        }),
      );
      Tags.of(created).add(tenantBucketRoleTag.key, tenantBucketRoleTag.value(access));
      acknowledgeNagRule(
        created,
        'AwsSolutions-IAM5[Resource::*]',
        "The keys of tenant buckets are the operator's and not known to the stack; their use is bounded to S3 (kms:ViaService), which this role reaches for those buckets' objects only.",
      );
      for (const name of props.bucketNames)
        acknowledgeNagRule(
          created,
          `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::${name}/*]`,
          'The objects of a tenant bucket the operator listed in tenantBuckets; each session is narrowed to one store by its session policy.',
        );
      return created;
    };
    this.reader = role('Reader', 'read', ['s3:GetObject'], ['kms:Decrypt']);
    this.writer = role(
      'Writer',
      'readWrite',
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      ['kms:Decrypt', 'kms:GenerateDataKey'],
    );
  }
}
