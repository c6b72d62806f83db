import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { StatefulStack, type StatefulStackProps } from './stateful-stack.ts';
import { StatelessStack, type StatelessStackProps } from './stateless-stack.ts';

export type TributaryProps = StatefulStackProps & Omit<StatelessStackProps, 'stateful'>;

/**
 * The whole deployment: the stateful stack (table, queues, buckets, secrets) and the stateless one
 * (API, functions, alarms), checked by cdk-nag's AwsSolutions rules on every synth. A finding fails
 * the synth unless it is suppressed beside the resource, with the reason.
 */
export function tributary(app: App, props: TributaryProps = {}) {
  const { env, removalPolicy, ...stateless } = props;
  const stateful = new StatefulStack(app, 'TributaryStateful', { env, removalPolicy });
  const statelessStack = new StatelessStack(app, 'TributaryStateless', { env, stateful, ...stateless });
  checkedByCdkNag(app);
  return { stateful, stateless: statelessStack };
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
