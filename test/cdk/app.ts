import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { type TributaryProps, tributary } from '#lib/app.ts';

/** The app as bin/app.ts builds it, cdk-nag included, without bundling (the bench and `cdk synth` bundle for real). */
export function synthesizeApp(props: TributaryProps = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const { stateful, stateless } = tributary(app, props);
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
