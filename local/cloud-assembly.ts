/**
 * A cloud assembly read as CloudFormation would deploy it, onto local resources: every stack's
 * template (nested stacks through their AWS::CloudFormation::Stack resources and the asset
 * manifests that name their template files), intrinsic functions resolved (Ref, Fn::GetAtt,
 * Fn::Join, Fn::Sub, Fn::ImportValue, Fn::Select, Fn::Split, Fn::If), and what local mode runs taken
 * from the standard resource types only:
 *  - AWS::Lambda::Function: its asset folder (Code.S3Key, through the asset manifests), handler,
 *    runtime, environment, memory, timeout, reserved concurrency and role;
 *  - AWS::ApiGatewayV2::Route → AWS::ApiGatewayV2::Integration → function: the HTTP routes;
 *  - AWS::Lambda::EventSourceMapping: queue consumers (batch size, window, maximum concurrency,
 *    partial batch responses);
 *  - AWS::Events::Rule: schedules (rate expressions) and their target functions;
 *  - AWS::IAM::Role / AWS::IAM::Policy, AWS::S3::BucketPolicy, AWS::SQS::QueuePolicy,
 *    AWS::KMS::Key: the policies a function's calls are evaluated against.
 *
 * Which local resource a template resource is: the one its functions find it by. A function finds
 * the table through TABLE_NAME, the platform bucket through PLATFORM_BUCKET, each queue through the
 * variable shared/topology.ts names for it, the key material through SECRETS_KEY_SECRET_ARN and
 * CURSOR_KEY_SECRET_ARN, the bootstrap key's secret through BOOTSTRAP_KEY_SECRET_ARN; a dead-letter queue is the one its queue's redrive policy names. Local
 * names are the local stand-ins' (the table, the platform bucket and the queue prefix of the
 * settings); everything else gets a name from its logical id, which nothing local reaches.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type QueueName, queues } from '#shared/topology.ts';
import { creationOrder, type TemplateResource } from './deploy/order.ts';
import type { GeneratedValue } from './deploy/secrets-manager.ts';
import type { ExpiryRule } from './s3/lifecycle.ts';

export const localAccount = '000000000000';
export const localRegion = 'us-east-1';

type Json = unknown;
interface Resource extends TemplateResource {
  Type: string;
  Properties?: Record<string, Json>;
  Metadata?: Record<string, Json>;
  Condition?: string;
}
interface Template {
  Resources?: Record<string, Resource>;
  Outputs?: Record<string, { Value: Json; Export?: { Name: Json } }>;
  Parameters?: Record<string, { Default?: Json }>;
  Conditions?: Record<string, Json>;
}

interface Stack {
  name: string;
  template: Template;
  /** Nested stacks: the parent and the resource that creates this one. */
  parent?: { stack: Stack; logicalId: string };
}

/** A resource of a stack: the stack's name and the logical id. */
export interface ResourceRef {
  stack: Stack;
  logicalId: string;
}

export type LocalSecret = 'secretsKey' | 'cursorKey' | 'bootstrapKey';

/** The local resources the template's are placed on. */
export interface LocalPlacement {
  tableName: string;
  platformBucket: string;
  /** Prefix of the local queue names (several local stacks may share one SQS stand-in). */
  queuePrefix: string;
  /** Base of the queue URLs (the SQS stand-in). */
  sqsEndpoint: string;
}

export interface LocalFunction {
  /** `stack/logicalId`, unique in the assembly. */
  id: string;
  /** As a function name on Lambda would be (the stack's name and the logical id). */
  name: string;
  arn: string;
  description: string;
  runtime: string;
  handler: string;
  assetDirectory: string;
  environment: Record<string, string>;
  memoryMb: number;
  timeoutSeconds: number;
  reservedConcurrency: number | null;
  logFormat: string;
  roleArn: string | null;
  /** Its declaration's name and kind (the stack's `tributary:function` metadata), for Tributary's own functions. */
  declared: { name: string; kind: string } | null;
}

export interface LocalRoute {
  routeKey: string;
  functionId: string;
}

export interface LocalEventSource {
  functionId: string;
  queue: QueueName;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  batchingWindowSeconds: number;
  maximumConcurrency: number | null;
  reportBatchItemFailures: boolean;
  enabled: boolean;
}

export interface LocalSchedule {
  functionId: string;
  expression: string;
  intervalSeconds: number;
  enabled: boolean;
}

export interface PolicyDocument {
  Version?: string;
  Statement: Record<string, Json>[] | Record<string, Json>;
}

/**
 * A resource CloudFormation, or the service it creates it in, runs deployed code for while the
 * stack deploys: a custom resource (its provider function) or a secret's rotation schedule (its
 * rotation function). local/deploy/rehearsal.ts runs them.
 */
export interface DeployStep {
  /** `stack/logicalId`, unique in the assembly. */
  id: string;
  stackId: string;
  logicalId: string;
  type: string;
  /** The resource's properties, resolved onto the local resources (a custom resource's ResourceProperties). */
  properties: Record<string, Json>;
  action:
    | {
        kind: 'customResource';
        /** The function that handles the requests. */
        functionId: string;
        /**
         * `lambda`: the ServiceToken's function, which answers at the ResponseURL; `providerFramework`:
         * CDK's provider framework, whose onEvent handler answers with its return value.
         */
        via: 'lambda' | 'providerFramework';
      }
    | { kind: 'rotationSchedule'; secretArn: string; functionId: string; rotateImmediately: boolean }
    | { kind: 'notRehearsed'; why: string };
}

export interface LocalDeployment {
  functions: Map<string, LocalFunction>;
  routes: LocalRoute[];
  eventSources: LocalEventSource[];
  schedules: LocalSchedule[];
  /** Each role's identity policies (inline and AWS::IAM::Policy), by role ARN. */
  rolePolicies: Map<string, PolicyDocument[]>;
  /** Roles with managed policies, whose documents the assembly does not hold. */
  unevaluableRoles: Set<string>;
  /** Each role's trust policy and tags (for sts:AssumeRole and iam:ResourceTag), by role ARN. */
  roles: Map<string, { trustPolicy: PolicyDocument | undefined; tags: Record<string, string> }>;
  /** Resource policies by the ARN of the resource they are attached to (buckets, queues, keys). */
  resourcePolicies: Map<string, PolicyDocument[]>;
  /** The secrets whose values local mode knows, by ARN. */
  secrets: Map<string, LocalSecret>;
  /** How the template has each secret's first value generated (GenerateSecretString), by ARN. */
  generatedSecrets: Map<string, GeneratedValue>;
  /** The resources whose deploy runs deployed code, in the order CloudFormation creates them. */
  deploySteps: DeployStep[];
  queueUrls: Record<QueueName, string>;
  /** The platform bucket's enabled lifecycle rules that expire objects under a prefix (local/s3/lifecycle.ts applies them). */
  platformBucketExpiry: ExpiryRule[];
}

const secretVariables: Record<string, LocalSecret> = {
  SECRETS_KEY_SECRET_ARN: 'secretsKey',
  CURSOR_KEY_SECRET_ARN: 'cursorKey',
  BOOTSTRAP_KEY_SECRET_ARN: 'bootstrapKey',
};

type Placed =
  | { kind: 'table' }
  | { kind: 'platformBucket' }
  | { kind: 'queue'; queue: QueueName }
  | { kind: 'secret'; secret: LocalSecret };

const key = (ref: ResourceRef) => `${ref.stack.name}/${ref.logicalId}`;

class AssemblyReader {
  readonly stacks: Stack[] = [];
  private readonly exports = new Map<string, { stack: Stack; value: Json }>();
  private readonly assetPaths = new Map<string, string>();
  private readonly placed = new Map<string, Placed>();

  constructor(
    readonly directory: string,
    readonly placement: LocalPlacement,
  ) {
    const manifest = JSON.parse(readFileSync(path.join(directory, 'manifest.json'), 'utf8')) as {
      artifacts: Record<string, { type: string; properties?: { templateFile?: string; file?: string } }>;
    };
    for (const artifact of Object.values(manifest.artifacts)) {
      if (artifact.type !== 'cdk:asset-manifest' || !artifact.properties?.file) continue;
      const assets = JSON.parse(readFileSync(path.join(directory, artifact.properties.file), 'utf8')) as {
        files?: Record<string, { source: { path?: string }; destinations: Record<string, { objectKey: string }> }>;
      };
      for (const file of Object.values(assets.files ?? {}))
        for (const destination of Object.values(file.destinations))
          if (file.source.path) this.assetPaths.set(destination.objectKey, file.source.path);
    }
    for (const [name, artifact] of Object.entries(manifest.artifacts)) {
      if (artifact.type !== 'aws:cloudformation:stack' || !artifact.properties?.templateFile) continue;
      this.addStack(name, artifact.properties.templateFile);
    }
    for (const stack of this.stacks)
      for (const output of Object.values(stack.template.Outputs ?? {}))
        if (output.Export)
          this.exports.set(String(this.resolve(output.Export.Name, stack)), { stack, value: output.Value });
  }

  private addStack(name: string, file: string, parent?: Stack['parent']): void {
    const template = JSON.parse(readFileSync(path.join(this.directory, file), 'utf8')) as Template;
    const stack: Stack = { name, template, parent };
    this.stacks.push(stack);
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const nestedFile =
        this.assetFile(resource.Properties?.TemplateURL, stack) ?? resource.Metadata?.['aws:asset:path'];
      if (typeof nestedFile !== 'string')
        throw new Error(`${name}/${logicalId}: no template file for the nested stack`);
      this.addStack(`${name}-${logicalId}`, nestedFile, { stack, logicalId });
    }
  }

  /** The assembly file an S3 location (a key or a URL ending with one) is uploaded from. */
  private assetFile(location: Json, stack: Stack): string | undefined {
    if (location === undefined) return undefined;
    const resolved = String(this.resolve(location, stack));
    return this.assetPaths.get(resolved.split('/').pop() ?? resolved);
  }

  resource(stack: Stack, logicalId: string): Resource {
    const resource = stack.template.Resources?.[logicalId];
    if (!resource) throw new Error(`${stack.name}: no resource ${logicalId}`);
    return resource;
  }

  /**
   * The resource an expression names (a Ref or Fn::GetAtt of it, through exports and nested stack
   * parameters), and the attribute when it is a GetAtt; null for anything else.
   */
  referenced(value: Json, stack: Stack): (ResourceRef & { attribute?: string }) | null {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
    const object = value as Record<string, Json>;
    if (typeof object.Ref === 'string') {
      const name = object.Ref;
      if (stack.template.Resources?.[name]) return { stack, logicalId: name };
      if (stack.template.Parameters?.[name] && stack.parent) {
        const nested = this.resource(stack.parent.stack, stack.parent.logicalId);
        const given = (nested.Properties?.Parameters as Record<string, Json> | undefined)?.[name];
        return this.referenced(given, stack.parent.stack);
      }
      return null;
    }
    if (object['Fn::GetAtt'] !== undefined) {
      const [logicalId, attribute] = this.getAttParts(object['Fn::GetAtt']);
      return { stack, logicalId, attribute };
    }
    if (object['Fn::ImportValue'] !== undefined) {
      const exported = this.exports.get(String(this.resolve(object['Fn::ImportValue'], stack)));
      return exported ? this.referenced(exported.value, exported.stack) : null;
    }
    return null;
  }

  /** Every resource an expression refers to, anywhere inside it. */
  referencesIn(value: Json, stack: Stack): ResourceRef[] {
    const direct = this.referenced(value, stack);
    if (direct) return [direct];
    if (Array.isArray(value)) return value.flatMap((item) => this.referencesIn(item, stack));
    if (value && typeof value === 'object')
      return Object.values(value as Record<string, Json>).flatMap((item) => this.referencesIn(item, stack));
    if (typeof value === 'string') {
      // Fn::Sub's ${Name} and ${Name.Attribute}.
      return [...value.matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z.]+)?\}/g)]
        .map((match) => match[1] as string)
        .filter((name) => stack.template.Resources?.[name])
        .map((logicalId) => ({ stack, logicalId }));
    }
    return [];
  }

  private getAttParts(value: Json): [string, string] {
    if (typeof value === 'string') {
      const [logicalId, ...attribute] = value.split('.');
      return [logicalId as string, attribute.join('.')];
    }
    const [logicalId, attribute] = value as [string, Json];
    return [logicalId, String(attribute)];
  }

  place(ref: ResourceRef, placed: Placed): void {
    const existing = this.placed.get(key(ref));
    if (existing && JSON.stringify(existing) !== JSON.stringify(placed))
      throw new Error(`${key(ref)} is found both as ${JSON.stringify(existing)} and as ${JSON.stringify(placed)}`);
    this.placed.set(key(ref), placed);
  }

  placedAs(ref: ResourceRef): Placed | undefined {
    return this.placed.get(key(ref));
  }

  /** The local name of a resource: what `Ref` answers for it. */
  physicalName(ref: ResourceRef): string {
    const placed = this.placedAs(ref);
    if (placed?.kind === 'table') return this.placement.tableName;
    if (placed?.kind === 'platformBucket') return this.placement.platformBucket;
    if (placed?.kind === 'queue') return `${this.placement.queuePrefix}${queues[placed.queue].name}`;
    const type = this.resource(ref.stack, ref.logicalId).Type;
    // The logical id (CDK's end in a hash of the construct path, unique in the app), its end kept
    // when it is too long; bucket names are lower case.
    const name = ref.logicalId.slice(-64);
    if (type === 'AWS::S3::Bucket') return `local-${ref.logicalId}`.toLowerCase().slice(-63);
    const same = this.stacks.filter((stack) => stack.template.Resources?.[ref.logicalId]).length;
    return same > 1 ? `${this.stacks.indexOf(ref.stack)}-${name}`.slice(-64) : name;
  }

  arnOf(ref: ResourceRef): string {
    const type = this.resource(ref.stack, ref.logicalId).Type;
    const name = this.physicalName(ref);
    const prefix = `${localRegion}:${localAccount}`;
    switch (type) {
      case 'AWS::DynamoDB::Table':
        return `arn:aws:dynamodb:${prefix}:table/${name}`;
      case 'AWS::SQS::Queue':
        return `arn:aws:sqs:${prefix}:${name}`;
      case 'AWS::S3::Bucket':
        return `arn:aws:s3:::${name}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${prefix}:secret:${name}-AbCdEf`;
      case 'AWS::Lambda::Function':
        return `arn:aws:lambda:${prefix}:function:${name}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${localAccount}:role/${name}`;
      case 'AWS::KMS::Key':
        return `arn:aws:kms:${prefix}:key/${name}`;
      case 'AWS::Logs::LogGroup':
        return `arn:aws:logs:${prefix}:log-group:${name}:*`;
      case 'AWS::SNS::Topic':
        return `arn:aws:sns:${prefix}:${name}`;
      default: {
        const service = type.split('::')[1]?.toLowerCase() ?? 'unknown';
        return `arn:aws:${service}:${prefix}:${ref.logicalId.toLowerCase()}/${name}`;
      }
    }
  }

  private refValue(ref: ResourceRef): string {
    const type = this.resource(ref.stack, ref.logicalId).Type;
    if (type === 'AWS::SQS::Queue') return `${this.placement.sqsEndpoint}/${localAccount}/${this.physicalName(ref)}`;
    if (type === 'AWS::SecretsManager::Secret' || type === 'AWS::SNS::Topic') return this.arnOf(ref);
    return this.physicalName(ref);
  }

  private attribute(ref: ResourceRef, attribute: string): string {
    const type = this.resource(ref.stack, ref.logicalId).Type;
    if (attribute === 'Arn') return this.arnOf(ref);
    if (type === 'AWS::SQS::Queue' && attribute === 'QueueName') return this.physicalName(ref);
    if (type === 'AWS::SQS::Queue' && attribute === 'QueueUrl') return this.refValue(ref);
    if (type === 'AWS::KMS::Key' && attribute === 'KeyId') return this.physicalName(ref);
    if (type === 'AWS::IAM::Role' && attribute === 'RoleId') return `AROA${this.physicalName(ref)}`;
    if (type === 'AWS::S3::Bucket' && attribute.endsWith('DomainName'))
      return `${this.physicalName(ref)}.s3.${localRegion}.amazonaws.com`;
    if (type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.')) {
      const nested = this.stacks.find(
        (stack) => stack.parent?.stack === ref.stack && stack.parent.logicalId === ref.logicalId,
      );
      const output = nested?.template.Outputs?.[attribute.slice('Outputs.'.length)];
      if (nested && output) return String(this.resolve(output.Value, nested));
    }
    return `${this.physicalName(ref)}.${attribute}`;
  }

  private pseudo(name: string, stack: Stack): string | undefined {
    switch (name) {
      case 'AWS::AccountId':
        return localAccount;
      case 'AWS::Region':
        return localRegion;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stack.name;
      case 'AWS::StackId':
        return `arn:aws:cloudformation:${localRegion}:${localAccount}:stack/${stack.name}/local`;
      case 'AWS::NoValue':
        return undefined;
      default:
        return undefined;
    }
  }

  condition(name: string, stack: Stack): boolean {
    return Boolean(this.resolve(stack.template.Conditions?.[name], stack));
  }

  resolve(value: Json, stack: Stack): Json {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item, stack));
    if (!value || typeof value !== 'object') return value;
    const object = value as Record<string, Json>;
    const keys = Object.keys(object);
    if (keys.length !== 1) return Object.fromEntries(keys.map((name) => [name, this.resolve(object[name], stack)]));
    const [fn] = keys as [string];
    const argument = object[fn];
    switch (fn) {
      case 'Ref': {
        const name = String(argument);
        if (name.startsWith('AWS::')) return this.pseudo(name, stack);
        if (stack.template.Resources?.[name]) return this.refValue({ stack, logicalId: name });
        if (stack.template.Parameters?.[name]) {
          if (!stack.parent) return stack.template.Parameters[name]?.Default;
          const nested = this.resource(stack.parent.stack, stack.parent.logicalId);
          return this.resolve((nested.Properties?.Parameters as Record<string, Json>)?.[name], stack.parent.stack);
        }
        throw new Error(`${stack.name}: Ref to unknown ${name}`);
      }
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = this.getAttParts(argument);
        return this.attribute({ stack, logicalId }, attribute);
      }
      case 'Fn::Join': {
        const [separator, items] = argument as [string, Json];
        return (this.resolve(items, stack) as Json[]).join(separator);
      }
      case 'Fn::Select': {
        const [index, items] = argument as [Json, Json];
        return (this.resolve(items, stack) as Json[])[Number(this.resolve(index, stack))];
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, Json];
        return String(this.resolve(source, stack)).split(separator);
      }
      case 'Fn::ImportValue': {
        const name = String(this.resolve(argument, stack));
        const exported = this.exports.get(name);
        if (!exported) throw new Error(`${stack.name}: no stack exports ${name}`);
        return this.resolve(exported.value, exported.stack);
      }
      case 'Fn::Sub': {
        const [text, variables] = (Array.isArray(argument) ? argument : [argument, {}]) as [
          string,
          Record<string, Json>,
        ];
        return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
          if (variables[name] !== undefined) return String(this.resolve(variables[name], stack));
          if (name.startsWith('AWS::')) return String(this.pseudo(name, stack));
          const [logicalId, ...attribute] = name.split('.');
          if (attribute.length > 0)
            return this.attribute({ stack, logicalId: logicalId as string }, attribute.join('.'));
          return String(this.resolve({ Ref: logicalId }, stack));
        });
      }
      case 'Fn::If': {
        const [condition, whenTrue, whenFalse] = argument as [string, Json, Json];
        return this.resolve(this.condition(condition, stack) ? whenTrue : whenFalse, stack);
      }
      case 'Fn::Equals': {
        const [a, b] = this.resolve(argument, stack) as [Json, Json];
        return JSON.stringify(a) === JSON.stringify(b);
      }
      case 'Fn::Not':
        return !(this.resolve(argument, stack) as Json[])[0];
      case 'Fn::And':
        return (this.resolve(argument, stack) as Json[]).every(Boolean);
      case 'Fn::Or':
        return (this.resolve(argument, stack) as Json[]).some(Boolean);
      case 'Condition':
        return this.condition(String(argument), stack);
      case 'Fn::GetAZs':
        return [`${localRegion}a`, `${localRegion}b`];
      default:
        if (fn.startsWith('Fn::')) throw new Error(`${stack.name}: ${fn} is not supported locally`);
        return { [fn]: this.resolve(argument, stack) };
    }
  }

  /** Every resource of a type, in every stack. */
  *resourcesOf(type: string): Generator<ResourceRef & { resource: Resource }> {
    for (const stack of this.stacks)
      for (const [logicalId, resource] of Object.entries(stack.template.Resources ?? {}))
        if (resource.Type === type) yield { stack, logicalId, resource };
  }

  assetDirectory(code: Record<string, Json> | undefined, stack: Stack, where: string): string {
    const file = this.assetFile(code?.S3Key, stack);
    if (!file) throw new Error(`${where}: its code is not an asset of the assembly`);
    return path.join(this.directory, file);
  }
}

/** `rate(5 minutes)` in seconds; other expressions (cron) are not run locally. */
function rateSeconds(expression: string): number | null {
  const match = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(expression.trim());
  if (!match) return null;
  const unit = match[2]?.startsWith('minute') ? 60 : match[2]?.startsWith('hour') ? 3600 : 86_400;
  return Number(match[1]) * unit;
}

const asNumber = (value: Json, fallback: number) => (value === undefined || value === null ? fallback : Number(value));

export function readDeployment(directory: string, placement: LocalPlacement): LocalDeployment {
  const reader = new AssemblyReader(directory, placement);

  // Place the resources functions find by their environment, then the dead-letter queues.
  const byVariable = new Map<string, Placed>([
    ['TABLE_NAME', { kind: 'table' }],
    ['PLATFORM_BUCKET', { kind: 'platformBucket' }],
    ...(Object.keys(queues) as QueueName[]).map(
      (queue) => [queues[queue].envVar, { kind: 'queue', queue }] as [string, Placed],
    ),
    ...Object.entries(secretVariables).map(
      ([variable, secret]) => [variable, { kind: 'secret', secret }] as [string, Placed],
    ),
  ]);
  for (const fn of reader.resourcesOf('AWS::Lambda::Function')) {
    const variables = ((fn.resource.Properties?.Environment as Record<string, Json> | undefined)?.Variables ??
      {}) as Record<string, Json>;
    for (const [name, value] of Object.entries(variables)) {
      const placed = byVariable.get(name);
      const target = placed && reader.referenced(value, fn.stack);
      if (placed && target) reader.place(target, placed);
    }
  }
  for (const queue of reader.resourcesOf('AWS::SQS::Queue')) {
    const placed = reader.placedAs(queue);
    const redrive = queue.resource.Properties?.RedrivePolicy as Record<string, Json> | undefined;
    if (placed?.kind !== 'queue' || !redrive) continue;
    const deadLetter = queues[placed.queue].deadLetter;
    const target = reader.referenced(redrive.deadLetterTargetArn, queue.stack);
    if (deadLetter && target) reader.place(target, { kind: 'queue', queue: deadLetter.queue });
  }

  const functions = new Map<string, LocalFunction>();
  for (const fn of reader.resourcesOf('AWS::Lambda::Function')) {
    const properties = fn.resource.Properties ?? {};
    const id = key(fn);
    const runtime = String(properties.Runtime ?? '');
    // Only Node.js functions with code in the assembly run locally (CDK's own deploy-time
    // functions, e.g. the custom resource framework, are among them too; they are simply never invoked).
    if (!runtime.startsWith('nodejs')) continue;
    const environment = Object.fromEntries(
      Object.entries(
        ((properties.Environment as Record<string, Json> | undefined)?.Variables ?? {}) as Record<string, Json>,
      ).map(([name, value]) => [name, String(reader.resolve(value, fn.stack))]),
    );
    const logging = (properties.LoggingConfig ?? {}) as Record<string, Json>;
    const role = reader.referenced(properties.Role, fn.stack);
    functions.set(id, {
      id,
      name: reader.physicalName(fn),
      arn: reader.arnOf(fn),
      description: String(properties.Description ?? ''),
      runtime,
      handler: String(properties.Handler ?? 'index.handler'),
      assetDirectory: reader.assetDirectory(properties.Code as Record<string, Json>, fn.stack, id),
      environment,
      memoryMb: asNumber(properties.MemorySize, 128),
      timeoutSeconds: asNumber(properties.Timeout, 3),
      reservedConcurrency:
        properties.ReservedConcurrentExecutions === undefined ? null : Number(properties.ReservedConcurrentExecutions),
      logFormat: String(logging.LogFormat ?? 'Text'),
      roleArn: role ? reader.arnOf(role) : null,
      declared: (fn.resource.Metadata?.['tributary:function'] as LocalFunction['declared'] | undefined) ?? null,
    });
  }
  const functionOf = (value: Json, stack: Stack, where: string): string => {
    const target = reader
      .referencesIn(value, stack)
      .find((ref) => reader.resource(ref.stack, ref.logicalId).Type === 'AWS::Lambda::Function');
    if (!target || !functions.has(key(target))) throw new Error(`${where}: no Node.js function of the assembly`);
    return key(target);
  };

  const routes: LocalRoute[] = [];
  for (const route of reader.resourcesOf('AWS::ApiGatewayV2::Route')) {
    const where = key(route);
    const integration = reader
      .referencesIn(route.resource.Properties?.Target, route.stack)
      .find((ref) => reader.resource(ref.stack, ref.logicalId).Type === 'AWS::ApiGatewayV2::Integration');
    if (!integration) throw new Error(`${where}: its target is not an integration of the assembly`);
    const properties = reader.resource(integration.stack, integration.logicalId).Properties ?? {};
    if (properties.IntegrationType !== 'AWS_PROXY' || String(properties.PayloadFormatVersion) !== '2.0')
      throw new Error(`${where}: local mode runs Lambda proxy integrations of payload format 2.0 only`);
    routes.push({
      routeKey: String(reader.resolve(route.resource.Properties?.RouteKey, route.stack)),
      functionId: functionOf(properties.IntegrationUri, integration.stack, where),
    });
  }

  const queueOf = (value: Json, stack: Stack, where: string) => {
    const target = reader.referenced(value, stack);
    const placed = target && reader.placedAs(target);
    if (!target || placed?.kind !== 'queue') throw new Error(`${where}: its queue is not one local mode knows`);
    return {
      queue: placed.queue,
      url: String(reader.resolve({ Ref: target.logicalId }, target.stack)),
      arn: reader.arnOf(target),
    };
  };
  const eventSources: LocalEventSource[] = [];
  for (const mapping of reader.resourcesOf('AWS::Lambda::EventSourceMapping')) {
    const properties = mapping.resource.Properties ?? {};
    const where = key(mapping);
    const queue = queueOf(properties.EventSourceArn, mapping.stack, where);
    const scaling = properties.ScalingConfig as Record<string, Json> | undefined;
    eventSources.push({
      functionId: functionOf(properties.FunctionName, mapping.stack, where),
      queue: queue.queue,
      queueUrl: queue.url,
      queueArn: queue.arn,
      batchSize: asNumber(properties.BatchSize, 10),
      batchingWindowSeconds: asNumber(properties.MaximumBatchingWindowInSeconds, 0),
      maximumConcurrency: scaling?.MaximumConcurrency === undefined ? null : Number(scaling.MaximumConcurrency),
      reportBatchItemFailures: ((properties.FunctionResponseTypes ?? []) as Json[]).includes('ReportBatchItemFailures'),
      enabled: properties.Enabled !== false,
    });
  }

  const schedules: LocalSchedule[] = [];
  for (const rule of reader.resourcesOf('AWS::Events::Rule')) {
    const properties = rule.resource.Properties ?? {};
    if (properties.ScheduleExpression === undefined) continue;
    const expression = String(reader.resolve(properties.ScheduleExpression, rule.stack));
    const intervalSeconds = rateSeconds(expression);
    if (intervalSeconds === null)
      throw new Error(`${key(rule)}: local mode runs rate() schedules only, not ${expression}`);
    for (const target of (properties.Targets ?? []) as Record<string, Json>[]) {
      schedules.push({
        functionId: functionOf(target.Arn, rule.stack, key(rule)),
        expression,
        intervalSeconds,
        enabled: (properties.State ?? 'ENABLED') === 'ENABLED',
      });
    }
  }

  const rolePolicies = new Map<string, PolicyDocument[]>();
  const unevaluableRoles = new Set<string>();
  const addRolePolicy = (roleArn: string, document: Json) => {
    rolePolicies.set(roleArn, [...(rolePolicies.get(roleArn) ?? []), document as PolicyDocument]);
  };
  const roles = new Map<string, { trustPolicy: PolicyDocument | undefined; tags: Record<string, string> }>();
  for (const role of reader.resourcesOf('AWS::IAM::Role')) {
    const arn = reader.arnOf(role);
    rolePolicies.set(arn, rolePolicies.get(arn) ?? []);
    roles.set(arn, {
      trustPolicy: reader.resolve(role.resource.Properties?.AssumeRolePolicyDocument, role.stack) as PolicyDocument,
      tags: Object.fromEntries(
        ((reader.resolve(role.resource.Properties?.Tags, role.stack) ?? []) as { Key: string; Value: string }[]).map(
          (tag) => [tag.Key, tag.Value],
        ),
      ),
    });
    for (const policy of (role.resource.Properties?.Policies ?? []) as Record<string, Json>[])
      addRolePolicy(arn, reader.resolve(policy.PolicyDocument, role.stack));
    // Managed policies' documents are not in the assembly: such a role's calls cannot be evaluated
    // locally (only CDK's deploy-time functions have one, and they are never invoked here).
    if (((role.resource.Properties?.ManagedPolicyArns ?? []) as Json[]).length > 0) unevaluableRoles.add(arn);
  }
  for (const policy of reader.resourcesOf('AWS::IAM::Policy')) {
    const document = reader.resolve(policy.resource.Properties?.PolicyDocument, policy.stack);
    for (const role of (policy.resource.Properties?.Roles ?? []) as Json[]) {
      const target = reader.referenced(role, policy.stack);
      if (target) addRolePolicy(reader.arnOf(target), document);
    }
  }

  const resourcePolicies = new Map<string, PolicyDocument[]>();
  const addResourcePolicy = (target: ResourceRef | null, document: Json) => {
    if (!target) return;
    const arn = reader.arnOf(target);
    resourcePolicies.set(arn, [...(resourcePolicies.get(arn) ?? []), document as PolicyDocument]);
  };
  for (const policy of reader.resourcesOf('AWS::S3::BucketPolicy'))
    addResourcePolicy(
      reader.referenced(policy.resource.Properties?.Bucket, policy.stack),
      reader.resolve(policy.resource.Properties?.PolicyDocument, policy.stack),
    );
  for (const policy of reader.resourcesOf('AWS::SQS::QueuePolicy'))
    for (const queue of (policy.resource.Properties?.Queues ?? []) as Json[])
      addResourcePolicy(
        reader.referenced(queue, policy.stack),
        reader.resolve(policy.resource.Properties?.PolicyDocument, policy.stack),
      );
  for (const keyResource of reader.resourcesOf('AWS::KMS::Key'))
    addResourcePolicy(keyResource, reader.resolve(keyResource.resource.Properties?.KeyPolicy, keyResource.stack));

  const platformBucketExpiry: ExpiryRule[] = [];
  for (const bucket of reader.resourcesOf('AWS::S3::Bucket')) {
    if (reader.placedAs(bucket)?.kind !== 'platformBucket') continue;
    const lifecycle = bucket.resource.Properties?.LifecycleConfiguration as
      | { Rules?: Record<string, Json>[] }
      | undefined;
    // A rule filtered otherwise than by prefix (tags, sizes) is left to S3: applied by prefix it would take too much.
    for (const rule of lifecycle?.Rules ?? [])
      if (
        rule.Status === 'Enabled' &&
        typeof rule.ExpirationInDays === 'number' &&
        rule.TagFilters === undefined &&
        rule.ObjectSizeGreaterThan === undefined &&
        rule.ObjectSizeLessThan === undefined
      )
        platformBucketExpiry.push({
          prefix: typeof rule.Prefix === 'string' ? rule.Prefix : '',
          days: rule.ExpirationInDays,
        });
  }

  const secrets = new Map<string, LocalSecret>();
  for (const secret of reader.resourcesOf('AWS::SecretsManager::Secret')) {
    const placed = reader.placedAs(secret);
    if (placed?.kind === 'secret') secrets.set(reader.arnOf(secret), placed.secret);
  }

  const queueUrls = Object.fromEntries(
    (Object.keys(queues) as QueueName[]).map((name) => [
      name,
      `${placement.sqsEndpoint}/${localAccount}/${placement.queuePrefix}${queues[name].name}`,
    ]),
  ) as Record<QueueName, string>;

  const generatedSecrets = new Map<string, GeneratedValue>();
  for (const secret of reader.resourcesOf('AWS::SecretsManager::Secret')) {
    const generation = reader.resolve(secret.resource.Properties?.GenerateSecretString, secret.stack) as
      | Record<string, Json>
      | undefined;
    if (!generation) continue;
    generatedSecrets.set(reader.arnOf(secret), {
      length: asNumber(generation.PasswordLength, 32),
      ...(typeof generation.SecretStringTemplate === 'string' && typeof generation.GenerateStringKey === 'string'
        ? { template: generation.SecretStringTemplate, key: generation.GenerateStringKey }
        : {}),
    });
  }

  const deploySteps: DeployStep[] = [];
  for (const stack of reader.stacks) {
    const resources = stack.template.Resources ?? {};
    for (const logicalId of creationOrder(resources)) {
      const resource = resources[logicalId] as Resource;
      const isCustom = resource.Type === 'AWS::CloudFormation::CustomResource' || resource.Type.startsWith('Custom::');
      if (!isCustom && resource.Type !== 'AWS::SecretsManager::RotationSchedule') continue;
      // A resource whose condition is false is not created.
      if (resource.Condition !== undefined && !reader.condition(resource.Condition, stack)) continue;
      const id = key({ stack, logicalId });
      const properties = (reader.resolve(resource.Properties ?? {}, stack) ?? {}) as Record<string, Json>;
      const step = (action: DeployStep['action']): DeployStep => ({
        id,
        stackId: `arn:aws:cloudformation:${localRegion}:${localAccount}:stack/${stack.name}/${createHash('sha256').update(stack.name).digest('hex').slice(0, 32)}`,
        logicalId,
        type: resource.Type,
        properties,
        action,
      });
      const localFunction = (value: Json, at: Stack) => {
        const target = reader.referenced(value, at);
        return target && functions.has(key(target)) ? { target, id: key(target) } : null;
      };
      if (isCustom) {
        const provider = localFunction(resource.Properties?.ServiceToken, stack);
        if (!provider) {
          deploySteps.push(
            step({ kind: 'notRehearsed', why: 'its ServiceToken is not a Node.js function of the assembly' }),
          );
          continue;
        }
        const variables = ((
          reader.resource(provider.target.stack, provider.target.logicalId).Properties?.Environment as
            | Record<string, Json>
            | undefined
        )?.Variables ?? {}) as Record<string, Json>;
        if (variables.USER_ON_EVENT_FUNCTION_ARN === undefined) {
          deploySteps.push(step({ kind: 'customResource', functionId: provider.id, via: 'lambda' }));
          continue;
        }
        const onEvent = localFunction(variables.USER_ON_EVENT_FUNCTION_ARN, provider.target.stack);
        if (variables.USER_IS_COMPLETE_FUNCTION_ARN !== undefined || !onEvent)
          deploySteps.push(
            step({
              kind: 'notRehearsed',
              why: onEvent
                ? 'its provider waits with an isComplete handler (a Step Functions waiter), which local mode does not run'
                : 'its onEvent handler is not a Node.js function of the assembly',
            }),
          );
        else deploySteps.push(step({ kind: 'customResource', functionId: onEvent.id, via: 'providerFramework' }));
        continue;
      }
      const rotation = localFunction(resource.Properties?.RotationLambdaARN, stack);
      const secret = reader.referenced(resource.Properties?.SecretId, stack);
      if (!rotation || !secret) {
        deploySteps.push(
          step({
            kind: 'notRehearsed',
            why: 'its rotation function or secret is not one of the assembly (hosted rotation?)',
          }),
        );
        continue;
      }
      deploySteps.push(
        step({
          kind: 'rotationSchedule',
          secretArn: reader.arnOf(secret),
          functionId: rotation.id,
          // Secrets Manager's default is to rotate at once.
          rotateImmediately:
            properties.RotateImmediatelyOnUpdate !== false && properties.RotateImmediatelyOnUpdate !== 'false',
        }),
      );
    }
  }

  return {
    functions,
    routes,
    eventSources,
    schedules,
    rolePolicies,
    unevaluableRoles,
    roles,
    resourcePolicies,
    secrets,
    generatedSecrets,
    deploySteps,
    queueUrls,
    platformBucketExpiry,
  };
}
