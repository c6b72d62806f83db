import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EdgeFirewallStack } from './constructs/edge.ts';
import { StatefulStack, type StatefulStackProps } from './stateful-stack.ts';
import { StatelessStack, type StatelessStackProps } from './stateless-stack.ts';

export type TributaryProps = StatefulStackProps &
  Omit<StatelessStackProps, 'stateful' | 'edgeWebAclArn'> & {
    /**
     * Put the API behind CloudFront with AWS WAF (off by default): a rate limit per client address
     * (requests per minute) and AWS's managed rule groups. Needs the deployment's region.
     */
    edge?: { rateLimitPerMinute?: number };
  };

/**
 * The whole deployment: the stateful stack (table, queues, buckets, secrets) and the stateless one
 * (API, functions, alarms), checked by cdk-nag's AwsSolutions rules on every synth. A finding fails
 * the synth unless it is suppressed beside the resource, with the reason.
 */
export function tributary(app: App, props: TributaryProps = {}) {
  const { env, removalPolicy, edge, ...stateless } = props;
  const stateful = new StatefulStack(app, 'TributaryStateful', { env, removalPolicy });
  let firewall: EdgeFirewallStack | undefined;
  if (edge) {
    if (!env?.region || !env.account)
      throw new Error(
        'The edge setting needs the deployment’s account and region (CDK_DEFAULT_ACCOUNT, CDK_DEFAULT_REGION)',
      );
    // A web ACL for CloudFront lives in us-east-1, whatever the region of the rest.
    firewall = new EdgeFirewallStack(app, 'TributaryEdgeFirewall', {
      env: { account: env.account, region: 'us-east-1' },
      crossRegionReferences: true,
      rateLimitPerMinute: edge.rateLimitPerMinute,
    });
  }
  const statelessStack = new StatelessStack(app, 'TributaryStateless', {
    env,
    stateful,
    ...stateless,
    ...(firewall ? { edgeWebAclArn: firewall.webAcl.attrArn, crossRegionReferences: true } : {}),
  });
  checkedByCdkNag(app);
  return { stateful, stateless: statelessStack, firewall };
}

/** cdk-nag's AwsSolutions rules run on every synth of the app; a finding not acknowledged fails it. */
export function checkedByCdkNag(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  Validations.of(app).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'Functions run on nodejs22.x, the runtime the service is built, bundled (target node22) and tested for; moving to a newer runtime is a deliberate upgrade, not a default. CDK picks the custom resource framework’s own runtime.',
  });
}
