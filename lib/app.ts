import type { App } from 'aws-cdk-lib';
import { checkedByCdkNag, checkedByControlTower } from './policy-checks.ts';
import { StatefulStack, type StatefulStackProps } from './stateful-stack.ts';
import { StatelessStack, type StatelessStackProps } from './stateless-stack.ts';

export { checkedByCdkNag, checkedByControlTower } from './policy-checks.ts';

export type TributaryProps = StatefulStackProps & Omit<StatelessStackProps, 'stateful'>;

/**
 * The whole deployment: the stateful stack (table, queues, buckets, secrets) and the stateless one
 * (API, functions, alarms), checked on every synth by cdk-nag's AwsSolutions rules and Control
 * Tower's proactive controls (lib/policy-checks.ts). A finding fails the synth unless it is
 * acknowledged beside the resource, with the reason.
 */
export function tributary(app: App, props: TributaryProps = {}) {
  const { env, removalPolicy, ...stateless } = props;
  const stateful = new StatefulStack(app, 'TributaryStateful', { env, removalPolicy });
  const statelessStack = new StatelessStack(app, 'TributaryStateless', { env, stateful, ...stateless });
  checkedByCdkNag(app);
  checkedByControlTower(app);
  return { stateful, stateless: statelessStack };
}
