import type { App } from 'aws-cdk-lib';
import { EdgeFirewallStack } from './constructs/edge.ts';
import { acknowledgeControl, checkedByCdkNag, checkedByControlTower } from './policy-checks.ts';
import { StatefulStack, type StatefulStackProps } from './stateful-stack.ts';
import { StatelessStack, type StatelessStackProps } from './stateless-stack.ts';
import { policyChecksContext } from './synth-context.ts';

export { checkedByCdkNag, checkedByControlTower } from './policy-checks.ts';

export type TributaryProps = StatefulStackProps &
  Omit<StatelessStackProps, 'stateful' | 'edgeWebAclArn' | 'edgeOriginSecretVersion'> & {
    /**
     * Put the API behind CloudFront with AWS WAF (off by default): a rate limit per client address
     * (requests per minute) and AWS's managed rule groups. Needs the deployment's region. Every
     * function then refuses requests that did not come through CloudFront (its origin secret, of
     * which `originSecretVersion` names the version CloudFront sends: docs/deploying.md).
     */
    edge?: { rateLimitPerMinute?: number; originSecretVersion?: string };
  };

/**
 * The whole deployment: the stateful stack (table, queues, buckets, secrets) and the stateless one
 * (API, functions, alarms), checked on every synth by cdk-nag's AwsSolutions rules and Control
 * Tower's proactive controls (lib/policy-checks.ts). A finding fails the synth unless it is
 * acknowledged beside the resource, with the reason.
 */
export function tributary(app: App, props: TributaryProps = {}) {
  const { env, removalPolicy, edge, unreadableDeadLetterDays, jobResultDays, ...stateless } = props;
  const stateful = new StatefulStack(app, 'TributaryStateful', {
    env,
    removalPolicy,
    unreadableDeadLetterDays,
    jobResultDays,
  });
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
    ...(firewall
      ? {
          edgeWebAclArn: firewall.webAcl.attrArn,
          edgeOriginSecretVersion: edge?.originSecretVersion,
          crossRegionReferences: true,
        }
      : {}),
  });
  if (firewall)
    // CDK adds the function that passes the web ACL's ARN between regions (its cross-region
    // references) when it prepares the app: only its stack can be named here.
    for (const stack of [firewall, statelessStack])
      acknowledgeControl(
        stack,
        'lambda_inside_vpc_check',
        "CDK's cross-region reference functions, which run at deployment only, and Tributary's own, which reach AWS service endpoints and tenants' stores anywhere (lib/constructs/service-function.ts).",
      );
  // Local mode synthesises this same app to run it (local/assembly.ts) and skips the checks, which
  // judge the templates and leave them as they are: two thirds of a synth's time, paid at every
  // `cdk synth` and in the CDK tests, not again at every start after a change.
  if (app.node.tryGetContext(policyChecksContext) !== 'skip') {
    checkedByCdkNag(app);
    checkedByControlTower(app);
  }
  return { stateful, stateless: statelessStack, firewall };
}
