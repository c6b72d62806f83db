/**
 * The policy checks every synth runs, as platform teams run them: cdk-nag's AwsSolutions rules and
 * AWS Control Tower's proactive controls (cfn-guard, through @cdklabs/cdk-validator-cfnguard, whose
 * binary runs offline). A finding fails the synth unless it is acknowledged beside the resource it
 * is about, with the reason (acknowledgeNagRule, acknowledgeControl). Both kinds of acknowledgement
 * reach the assembly's validation report (`validation-report.json`, each plugin's
 * `suppressedViolations`, with the reason and where it was made): what an auditor reads.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  type Stage,
  Validations,
} from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** cdk-nag's AwsSolutions rules run on every synth of the app; a finding not acknowledged fails it. */
export function checkedByCdkNag(app: Stage): void {
  const checks = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(checks);
  acknowledgeNagRule(
    app,
    'AwsSolutions-L1',
    'Functions run on nodejs22.x, the runtime the service is built, bundled (target node22) and tested for; moving to a newer runtime is a deliberate upgrade, not a default. CDK picks the custom resource framework’s own runtime.',
  );
}

/**
 * Acknowledges a cdk-nag finding (`AwsSolutions-IAM5[Resource::*]` and the like) for `scope` and everything
 * in it. The id carries the plugin's namespace: cdk-nag then reports the finding and CDK itself sets it
 * aside as acknowledged, so it is listed in the validation report with its reason, as Control Tower's
 * are. (An id without the namespace is dropped by cdk-nag before CDK sees it: held, but listed nowhere.)
 */
export function acknowledgeNagRule(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `${nagPlugin}::${rule}`, reason });
}

const nagPlugin = 'AwsSolutions';

/** Control Tower's proactive controls run on every synth of the app, nested stacks included. */
export function checkedByControlTower(app: Stage): void {
  Validations.of(app).addPlugins(new ControlTowerRules());
}

/** Acknowledges a Control Tower control (its cfn-guard rule name) for `scope` and everything in it. */
export function acknowledgeControl(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `${controlTowerPlugin}::${rule}`, reason });
}

const controlTowerPlugin = 'cdk-validator-cfnguard';
const controlTowerRules = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json')),
  'rules/control-tower/cfn-guard',
);

/**
 * Control Tower's rules as its proactive controls apply them at deployment, to every template of the
 * assembly. Four differences from the plugin alone:
 *  - CDK hands a plugin the templates of the top-level stacks only; the routes' nested stacks, which
 *    hold most of the functions, are written beside them (`*.nested.template.json`).
 *  - A nested stack's parameters are resolved when it deploys, to what its parent passes; the rules
 *    cannot follow a reference across templates (the plugin fails on one), so each is replaced by
 *    a string standing for the value the parent passes.
 *  - Only the rules about resource types the templates hold run (the others would skip every
 *    resource): a fifth of the time.
 *  - Every violation is an error (see validate).
 */
class ControlTowerRules implements IPolicyValidationPlugin {
  readonly name = controlTowerPlugin;
  readonly version = new CfnGuardValidator({ controlTowerRulesEnabled: false }).version;

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const resolved = mkdtempSync(path.join(os.tmpdir(), 'tributary-guard-'));
    try {
      const directories = new Set(context.templatePaths.map((template) => path.dirname(template)));
      const nested = [...directories].flatMap((directory) =>
        readdirSync(directory)
          .filter((file) => file.endsWith('.nested.template.json'))
          .map((file) => path.join(directory, file)),
      );
      const originals = new Map<string, string>();
      for (const template of nested) {
        const copy = path.join(resolved, path.basename(template));
        writeFileSync(copy, JSON.stringify(withParametersResolved(JSON.parse(readFileSync(template, 'utf8')))));
        originals.set(copy, template);
      }
      const templatePaths = [...context.templatePaths, ...originals.keys()];
      const plugin = new CfnGuardValidator({
        controlTowerRulesEnabled: false,
        rules: rulesFor(resourceTypes(templatePaths)),
        maxBuffer: 256 * 1024 * 1024,
      });
      const report = plugin.validate({ ...context, templatePaths });
      return {
        ...report,
        violations: report.violations.map((violation) => ({
          ...violation,
          // CDK judges a report again once it has removed the acknowledged violations, by their
          // severity; the plugin gives none, so a report with one acknowledgement would pass whatever remained.
          severity: violation.severity ?? 'error',
          violatingResources: violation.violatingResources.map((resource) => ({
            ...resource,
            templatePath: originals.get(resource.templatePath) ?? resource.templatePath,
          })),
        })),
      };
    } finally {
      rmSync(resolved, { recursive: true, force: true });
    }
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function withParametersResolved(template: { [key: string]: Json }): Json {
  const parameters = new Set(Object.keys((template.Parameters as Record<string, Json> | undefined) ?? {}));
  const resolve = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const ref = value.Ref;
    if (Object.keys(value).length === 1 && typeof ref === 'string' && parameters.has(ref)) return `resolved-${ref}`;
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner)]));
  };
  return { ...template, Resources: resolve(template.Resources ?? {}) };
}

function resourceTypes(templates: string[]): Set<string> {
  const types = new Set<string>();
  for (const template of templates) {
    const { Resources = {} } = JSON.parse(readFileSync(template, 'utf8')) as {
      Resources?: Record<string, { Type: string }>;
    };
    for (const resource of Object.values(Resources)) types.add(resource.Type);
  }
  return types;
}

/** The rule files that report on any of `types` (each names its types in its header, under "Reports on:"). */
function rulesFor(types: Set<string>): string[] {
  return readdirSync(controlTowerRules, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.guard'))
    .map((file) => path.join(controlTowerRules, file))
    .filter((file) => {
      const header = /Reports on:([\s\S]*?)\n#\s*\n/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
      return (header.match(/AWS::\w+::\w+/g) ?? []).some((type) => types.has(type));
    });
}
