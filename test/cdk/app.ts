import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { StatefulStack } from '#lib/stateful-stack.ts';
import { StatelessStack } from '#lib/stateless-stack.ts';

/** The app as bin/app.ts builds it, without bundling (the bench and `cdk synth` bundle for real). */
export function synthesizeApp() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stateful = new StatefulStack(app, 'TributaryStateful');
  const stateless = new StatelessStack(app, 'TributaryStateless', { stateful });
  const nested = stateless.node.children.filter((child): child is NestedStack => child instanceof NestedStack);
  return {
    app,
    stateful,
    stateless,
    statefulTemplate: Template.fromStack(stateful),
    statelessTemplate: Template.fromStack(stateless),
    nestedTemplates: nested.map((stack) => Template.fromStack(stack)),
  };
}
