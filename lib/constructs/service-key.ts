import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/**
 * A customer managed key as Control Tower's controls want it: rotated yearly (CT.KMS.PR.1), and
 * grants of it only for AWS services acting for a resource (CT.KMS.PR.3).
 */
export function serviceKey(scope: Construct, id: string, description: string, removalPolicy?: RemovalPolicy): Key {
  const key = new Key(scope, id, { enableKeyRotation: true, description, removalPolicy });
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'GrantsOnlyForAwsServices',
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['kms:CreateGrant'],
      resources: ['*'],
      conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
    }),
  );
  return key;
}

/** Lets CloudWatch Logs encrypt and read the log groups of this account and region with `key`. */
export function allowLogGroups(key: Key): void {
  const stack = Stack.of(key);
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'LogGroupsOfThisAccount',
      principals: [new ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': `arn:${stack.partition}:logs:${stack.region}:${stack.account}:log-group:*`,
        },
      },
    }),
  );
}
