import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QueueConsumer } from './queue-consumer.ts';
import type { FunctionContext } from './service-function.ts';

export interface DashboardProvisioningProps {
  queue: IQueue;
  context: FunctionContext;
  /** The dashboard tool that receives each tenant's read-only credential (none: provisioning fails with a reason). */
  dashboardUrl?: string;
  /** Name or ARN of the Secrets Manager secret holding the tool's bearer token (none: no Authorization header). */
  dashboardTokenSecret?: string;
}

/**
 * Hands each tenant's read-only credential to the deployment's dashboard tool: the provisioner
 * consumes the dashboard queue, with the tool's URL and the secret holding its token. The secret is
 * read at each provisioning, so a new value put into it is used from the next one on.
 */
export class DashboardProvisioning extends Construct {
  readonly provisioner: QueueConsumer;
  readonly tokenSecret?: ISecret;

  constructor(scope: Construct, id: string, props: DashboardProvisioningProps) {
    super(scope, id);
    // The provisioner posts each tenant's read-only API key there: never in clear text.
    if (props.dashboardUrl !== undefined && !/^https:\/\/[^/?#\s]+/.test(props.dashboardUrl))
      throw new Error(
        `dashboardUrl must be an https:// URL (it receives tenants' API keys), got "${props.dashboardUrl}"`,
      );
    const name = props.dashboardTokenSecret;
    if (name)
      this.tokenSecret = name.startsWith('arn:')
        ? Secret.fromSecretCompleteArn(this, 'Token', name)
        : Secret.fromSecretNameV2(this, 'Token', name);
    const dashboardTool = { url: props.dashboardUrl, tokenSecret: this.tokenSecret };
    this.provisioner = new QueueConsumer(this, 'Provisioner', {
      consumer: 'dashboard-provisioner',
      queue: props.queue,
      context: { ...props.context, resources: { ...props.context.resources, dashboardTool } },
    });
  }
}
