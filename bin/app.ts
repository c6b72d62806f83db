#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { StatefulStack } from '#lib/stateful-stack.ts';
import { StatelessStack } from '#lib/stateless-stack.ts';

const app = new App();
const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
const stateful = new StatefulStack(app, 'TributaryStateful', { env });
new StatelessStack(app, 'TributaryStateless', { env, stateful });
