import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { type TributaryProps, tributary } from '#lib/app.ts';
import { type Bundle, StackBundles } from '#lib/bundling.ts';

/**
 * The app as bin/app.ts builds it, its policy checks included. With an `outdir`, its functions are
 * bundled for real and the cloud assembly (templates and asset folders) is left there, as `cdk synth`
 * leaves it in cdk.out; without, bundling is skipped.
 */
export function synthesizeApp(props: TributaryProps = {}, outdir?: string) {
  const app = new App(outdir ? { outdir } : { context: { 'aws:cdk:bundling-stacks': [] } });
  const { stateful, stateless } = tributary(app, props);
  const nested = stateless.node.findAll().filter((child): child is NestedStack => child instanceof NestedStack);
  const synthesized = {
    statefulTemplate: Template.fromStack(stateful),
    statelessTemplate: Template.fromStack(stateless),
    nestedTemplates: nested.map((stack) => Template.fromStack(stack)),
    assembly: outdir,
    /** What esbuild said of each bundle it built for the assembly (its inputs, what it loads at start). */
    bundles: outdir ? StackBundles.builtSoFar().map(({ directory: _, ...facts }) => facts) : [],
    /** The warnings the synth gave about the stateless stack (what `cdk synth` prints), as written. */
    statelessWarnings: app
      .synth()
      .getStackArtifact(stateless.artifactId)
      .messages.filter((message) => message.level === 'warning')
      .map((message) => String(message.entry.data)),
  };
  return synthesized;
}

export type BundleFacts = Omit<Bundle, 'directory'>;

export type SynthesizedApp = ReturnType<typeof synthesizeApp>;

/**
 * Every setting a deployment can change, in one app: tenant buckets and roles, custom store
 * endpoints, alarm thresholds and email, tracing, the ingest limit, the writer's batching window,
 * the writer's and committer's reserved concurrency, the committers at once, the API's throttles, the dashboard tool and its token. The tests of each setting read it (one synthesis
 * rather than one per setting); the default app shows what a deployment gets without them.
 */
export const configuredProps: TributaryProps = {
  tenantBuckets: ['acme-lake'],
  tenantRoleArns: ['arn:aws:iam::123456789012:role/tributary-writer'],
  allowedStoreEndpoints: ['*.r2.cloudflarestorage.com', 'minio.example.com:9000'],
  alarmEmail: 'oncall@example.com',
  thresholds: { oldestIngestMessageSeconds: 60, api5xxPercent: 5, stagedOverdueSeconds: 120 },
  tableFreshnessSeconds: 900,
  dataRetentionDays: 400,
  unreadableDeadLetterDays: 90,
  jobResultDays: 2,
  tracing: true,
  ingestMaxBytes: 2 * 1024 * 1024,
  // 0: invoke as soon as envelopes arrive, which Lambda allows with batches of at most 10.
  writerBatchingWindowSeconds: 0,
  // The writer's and the committer's maximum concurrency, reserved (an account with a quota of at least 200).
  reservedConcurrency: 50,
  // Fewer committers than the topology's 50 (a reservation must cover the most that run at once).
  committerConcurrency: 40,
  throttleRatePerSecond: 300,
  throttleBurst: 600,
  ingestThrottleRatePerSecond: 5000,
  ingestThrottleBurst: 8000,
  dashboardUrl: 'https://dashboards.example.com/connections',
  dashboardTokenSecret: 'tributary/dashboard-token',
};

const variants = { default: {}, configured: configuredProps } satisfies Record<string, TributaryProps>;
type Variant = keyof typeof variants;
const synthesized = new Map<Variant, SynthesizedApp>();

/** The app with default props, synthesised once per test run (see sharedSynthesis). */
export const synthesizedDefaultApp = () => sharedSynthesis('default');

/** The app with every setting changed (configuredProps), synthesised once per test run. */
export const synthesizedConfiguredApp = () => sharedSynthesis('configured');

/**
 * One synthesis per variant and test run: the first file to ask synthesises it (cdk-nag's checks
 * run as part of that) and leaves the templates in the run's directory (test/support/cdk-setup.ts);
 * files in other workers wait for them instead of synthesising again.
 */
async function sharedSynthesis(variant: Variant): Promise<SynthesizedApp> {
  const known = synthesized.get(variant);
  if (known) return known;
  const directory = inject('cdkTemplates');
  const file = path.join(directory, `${variant}.json`);
  const failure = path.join(directory, `${variant}.failed.txt`);
  let claimed = false;
  try {
    mkdirSync(path.join(directory, `${variant}.claimed`));
    claimed = true;
  } catch {
    // Another worker is synthesising.
  }
  if (claimed) {
    try {
      // The default app is synthesised with its bundles (test/cdk/bundles.test.ts loads them).
      const app = synthesizeApp(
        variants[variant],
        variant === 'default' ? path.join(directory, 'assembly') : undefined,
      );
      const json = {
        assembly: app.assembly,
        bundles: app.bundles,
        stateful: app.statefulTemplate.toJSON(),
        stateless: app.statelessTemplate.toJSON(),
        nested: app.nestedTemplates.map((template) => template.toJSON()),
        statelessWarnings: app.statelessWarnings,
      };
      writeFileSync(`${file}.partial`, JSON.stringify(json));
      renameSync(`${file}.partial`, file);
      synthesized.set(variant, app);
      return app;
    } catch (error) {
      writeFileSync(failure, String((error as Error).stack ?? error));
      throw error;
    }
  }
  const deadline = Date.now() + 290_000;
  while (!existsSync(file)) {
    if (existsSync(failure)) throw new Error(`The shared synthesis failed:\n${readFileSync(failure, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`No shared synthesis in ${directory} after 290 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const json = JSON.parse(readFileSync(file, 'utf8'));
  const app: SynthesizedApp = {
    statefulTemplate: Template.fromJSON(json.stateful),
    statelessTemplate: Template.fromJSON(json.stateless),
    nestedTemplates: json.nested.map((template: Record<string, unknown>) => Template.fromJSON(template)),
    assembly: json.assembly,
    bundles: json.bundles,
    statelessWarnings: json.statelessWarnings,
  };
  synthesized.set(variant, app);
  return app;
}
