#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { tributary } from '#lib/app.ts';

const app = new App();
const context = (name: string) => app.node.tryGetContext(name) as string | undefined;
const number = (name: string) => (context(name) === undefined ? undefined : Number(context(name)));
const list = (name: string) =>
  context(name)
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean);

tributary(app, {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  alarmEmail: context('alarmEmail'),
  dashboardUrl: context('dashboardUrl'),
  dashboardTokenSecret: context('dashboardTokenSecret'),
  ingestMaxBytes: number('ingestMaxBytes'),
  writerBatchingWindowSeconds: number('writerBatchingWindowSeconds'),
  reservedConcurrency: number('reservedConcurrency'),
  committerConcurrency: number('committerConcurrency'),
  tableFreshnessSeconds: number('tableFreshnessSeconds'),
  dataRetentionDays: number('dataRetentionDays'),
  unreadableDeadLetterDays: number('unreadableDeadLetterDays'),
  jobResultDays: number('jobResultDays'),
  tenantBuckets: list('tenantBuckets'),
  tenantRoleArns: list('tenantRoleArns'),
  allowedStoreEndpoints: list('allowedStoreEndpoints'),
  allowPlatformAccountRoles: String(app.node.tryGetContext('allowPlatformAccountRoles')) === 'true',
  throttleRatePerSecond: number('apiThrottleRate'),
  throttleBurst: number('apiThrottleBurst'),
  ingestThrottleRatePerSecond: number('ingestThrottleRate'),
  ingestThrottleBurst: number('ingestThrottleBurst'),
  tracing: String(app.node.tryGetContext('tracing')) === 'true',
  edge:
    String(app.node.tryGetContext('edge')) === 'true'
      ? { rateLimitPerMinute: number('edgeRateLimit'), originSecretVersion: context('edgeOriginSecretVersion') }
      : undefined,
  thresholds: {
    oldestIngestMessageSeconds: number('oldestIngestMessageSeconds'),
    stagedOverdueSeconds: number('stagedOverdueSeconds'),
    // writerErrors: its name when it watched the batch writer alone.
    functionErrors: number('functionErrors') ?? number('writerErrors'),
    batchFailures: number('batchFailures'),
    api5xxPercent: number('api5xxPercent'),
    failedJobPercent: number('failedJobPercent'),
    edgeRefusals: number('edgeRefusals'),
  },
});
