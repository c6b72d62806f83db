import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { type TributaryProps, tributary } from '#lib/app.ts';

/** The app as bin/app.ts builds it, cdk-nag included, without bundling (the bench and `cdk synth` bundle for real). */
export function synthesizeApp(props: TributaryProps = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const { stateful, stateless } = tributary(app, props);
  const nested = stateless.node.children.filter((child): child is NestedStack => child instanceof NestedStack);
  return {
    statefulTemplate: Template.fromStack(stateful),
    statelessTemplate: Template.fromStack(stateless),
    nestedTemplates: nested.map((stack) => Template.fromStack(stack)),
  };
}

export type SynthesizedApp = ReturnType<typeof synthesizeApp>;

let defaultApp: SynthesizedApp | undefined;

/**
 * The app with default props, synthesised once per test run: the first file to ask synthesises it
 * (cdk-nag's checks run as part of that) and leaves the templates in the run's directory
 * (test/support/cdk-setup.ts); files in other workers wait for them instead of synthesising again.
 */
export async function synthesizedDefaultApp(): Promise<SynthesizedApp> {
  if (defaultApp) return defaultApp;
  const directory = inject('cdkTemplates');
  const file = path.join(directory, 'default.json');
  let claimed = false;
  try {
    mkdirSync(path.join(directory, 'claimed'));
    claimed = true;
  } catch {
    // Another worker is synthesising.
  }
  if (claimed) {
    try {
      const app = synthesizeApp();
      const json = {
        stateful: app.statefulTemplate.toJSON(),
        stateless: app.statelessTemplate.toJSON(),
        nested: app.nestedTemplates.map((template) => template.toJSON()),
      };
      writeFileSync(`${file}.partial`, JSON.stringify(json));
      renameSync(`${file}.partial`, file);
      defaultApp = app;
      return app;
    } catch (error) {
      writeFileSync(path.join(directory, 'failed.txt'), String((error as Error).stack ?? error));
      throw error;
    }
  }
  const deadline = Date.now() + 110_000;
  while (!existsSync(file)) {
    const failure = path.join(directory, 'failed.txt');
    if (existsSync(failure)) throw new Error(`The shared synthesis failed:\n${readFileSync(failure, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`No shared synthesis in ${directory} after 110 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const json = JSON.parse(readFileSync(file, 'utf8'));
  defaultApp = {
    statefulTemplate: Template.fromJSON(json.stateful),
    statelessTemplate: Template.fromJSON(json.stateless),
    nestedTemplates: json.nested.map((template: Record<string, unknown>) => Template.fromJSON(template)),
  };
  return defaultApp;
}
