import { CustomResource, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { CfnRotationSchedule, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { bootstrapKeyFunctions } from '../functions.ts';
import { acknowledgeControl, acknowledgeNagRule } from '../policy-checks.ts';
import { type FunctionContext, logRetention, outsideVpc, ServiceFunction } from './service-function.ts';

export interface BootstrapKeyProps {
  /** The secret holding the bootstrap API key (the stateful stack's). */
  secret: ISecret;
  context: FunctionContext;
}

/**
 * The operator's bootstrap API key: installed as a valid PlatformAdmin key at the first deploy (a
 * custom resource), then rotated once by the rotation schedule's creation, and after that on demand:
 * `aws secretsmanager rotate-secret` on its secret makes a new key, installs it and retires the old
 * one (functions/platform/rotate-bootstrap-key.ts). Only on demand: the key is an operator's
 * emergency key, read from the secret when needed.
 */
export class BootstrapKey extends Construct {
  readonly installer: ServiceFunction;
  readonly installation: CustomResource;
  readonly rotation: ServiceFunction;
  readonly rotationSchedule: CfnRotationSchedule;

  constructor(scope: Construct, id: string, props: BootstrapKeyProps) {
    super(scope, id);
    this.installer = new ServiceFunction(this, 'Installer', bootstrapKeyFunctions.installer, props.context);
    const provider = new Provider(this, 'Provider', {
      onEventHandler: this.installer,
      // CDK's framework function logs as every function of the stack does: a year, under the logs key.
      logGroup: new LogGroup(this, 'ProviderLogs', {
        retention: logRetention,
        encryptionKey: props.context.logsKey,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    const stack = Stack.of(this);
    acknowledgeNagRule(
      provider,
      `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.installer.node.defaultChild as CfnFunction)}.Arn>:*]`,
      'The CDK custom resource framework invokes the installer function, by whichever version is current.',
    );
    acknowledgeNagRule(
      provider,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'The role of the CDK custom resource framework’s own function, which CDK defines; it runs only during deployments.',
    );
    acknowledgeControl(provider, 'lambda_inside_vpc_check', outsideVpc);
    this.installation = new CustomResource(this, 'Installation', {
      serviceToken: provider.serviceToken,
      // Installs the key at the first deploy; rotating it is the rotation function's. KeyRecord names
      // the form of the key's record: a new value makes the next deploy (and local start) install the
      // same key again, in that form (2: the record names its role, PlatformAdmin, which authentication
      // requires of a key without a user; shared/adapters/dynamo/api-keys.ts installBootstrapKey).
      properties: { SecretArn: props.secret.secretArn, KeyRecord: '2' },
    });

    this.rotation = new ServiceFunction(this, 'Rotation', bootstrapKeyFunctions.rotation, props.context);
    this.rotation.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:UpdateSecretVersionStage'],
        resources: [props.secret.secretArn],
      }),
    );
    const permission = 'SecretsManagerRotates';
    this.rotation.addPermission(permission, {
      principal: new ServicePrincipal('secretsmanager.amazonaws.com'),
      sourceAccount: stack.account,
      sourceArn: props.secret.secretArn,
    });
    acknowledgeControl(
      this.rotation,
      'lambda_function_public_access_prohibited_check',
      'Secrets Manager may invoke the rotation function for the bootstrap key secret of this account only (SourceArn and SourceAccount, references the rule does not read).',
    );
    // Rotated at once when the schedule is made (the first deploy) or changed: all four steps run, so
    // the key in the secret afterwards is a new, installed one. Not rotating at once would make
    // Secrets Manager test the configuration instead, by running the testSecret step against an
    // AWSPENDING version it creates and removes (RotateImmediately in
    // https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_RotateSecret.html): a
    // version holding no key, which testSecret refuses, failing the deploy. The key must be installed
    // first, so that the secret the rotation starts from holds one.
    this.rotationSchedule = new CfnRotationSchedule(this, 'RotationSchedule', {
      secretId: props.secret.secretArn,
      rotationLambdaArn: this.rotation.functionArn,
      rotateImmediatelyOnUpdate: true,
    });
    this.rotationSchedule.node.addDependency(this.rotation.permissionsNode.findChild(permission));
    this.rotationSchedule.node.addDependency(this.installation);
  }
}
