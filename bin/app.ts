#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { StatefulStack } from '#lib/stateful-stack.ts';
import { StatelessStack } from '#lib/stateless-stack.ts';

const app = new App();
const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
const context = (name: string) => app.node.tryGetContext(name) as string | undefined;
const number = (name: string) => (context(name) === undefined ? undefined : Number(context(name)));

const stateful = new StatefulStack(app, 'TributaryStateful', { env });
new StatelessStack(app, 'TributaryStateless', {
  env,
  stateful,
  alarmEmail: context('alarmEmail'),
  dashboardUrl: context('dashboardUrl'),
  thresholds: {
    oldestIngestMessageSeconds: number('oldestIngestMessageSeconds'),
    writerErrors: number('writerErrors'),
    batchFailures: number('batchFailures'),
    api5xxPercent: number('api5xxPercent'),
    failedJobPercent: number('failedJobPercent'),
  },
});
