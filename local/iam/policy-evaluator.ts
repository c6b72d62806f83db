/**
 * IAM's decision on one call, locally: the caller's role policies (and the session policy it was
 * assumed with), the resource policy of the bucket, queue, key or role it touches, evaluated by a
 * real policy evaluator (@cloud-copilot/iam-simulate).
 *
 * The request context: the caller is the role's session (`assumed-role/<role>/<function>`, as
 * Lambda's credentials are), in the local account, and the call counts as made over TLS
 * (aws:SecureTransport true): the SDK reaches AWS over HTTPS, and the buckets' and queues' policies
 * deny anything else; locally the endpoints are plain HTTP on the loopback.
 *
 * Decisions are kept per session, action, resource and the context keys the policies test, so a
 * busy path (the same queue, the same table) is evaluated once and then answered at once, without
 * waiting: a kept decision is a plain value, not a promise.
 */
import { getDenialReasons, runSimulation } from '@cloud-copilot/iam-simulate';
import type { PolicyDocument } from '../cloud-assembly.ts';
import type { AskedAction } from './requests.ts';

export interface Identity {
  /** The role session's name: the function's, or the one it gave AssumeRole. */
  functionName: string;
  roleArn: string;
  /** A session policy the session was assumed with (AssumeRole's Policy). */
  sessionPolicy?: PolicyDocument;
}

/** What IAM knows of the deployment: plain data, so that it can cross into a thread. */
export interface Policies {
  /** Each function's identity, by the access key its calls are signed with. */
  identities: Record<string, Identity>;
  rolePolicies: Record<string, PolicyDocument[]>;
  resourcePolicies: Record<string, PolicyDocument[]>;
  /** Each role's trust policy and tags, by ARN (STS's AssumeRole). */
  roles: Record<string, { trustPolicy: PolicyDocument | undefined; tags: Record<string, string> }>;
}

export interface Denial {
  functionName: string;
  roleArn: string;
  action: string;
  resource: string;
  /** AWS's words for why: "because no identity-based policy allows the … action", … */
  reason: string;
}

export const localAccount = '000000000000';

/** The session Lambda's credentials stand for: `arn:aws:sts::<account>:assumed-role/<role>/<function>`. */
export const sessionArn = (identity: Identity) =>
  `arn:aws:sts::${localAccount}:assumed-role/${identity.roleArn.split('/').pop()}/${identity.functionName}`;

/** Whether an action matches a statement's Action pattern (`*` and `?` wildcards, case-insensitive). */
function actionMatches(pattern: string, action: string): boolean {
  const expression = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${expression}$`, 'i').test(action);
}

const statementsOf = (document: PolicyDocument) =>
  Array.isArray(document.Statement) ? document.Statement : [document.Statement];

const globs = new Map<string, RegExp>();
/** A glob of a Resource pattern (`*` and `?`, case-sensitive) as a regular expression, made once. */
function glob(pattern: string): RegExp {
  let expression = globs.get(pattern);
  if (!expression) {
    expression = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    globs.set(pattern, expression);
  }
  return expression;
}

/**
 * Whether an ARN matches a Resource pattern as IAM matches it: partition, service, region and
 * account each against the pattern's own segment, the resource part against the rest; `*` alone
 * matches everything.
 */
function resourceMatches(pattern: string, arn: string): boolean {
  if (pattern === '*') return true;
  const wanted = pattern.split(':');
  const given = arn.split(':');
  if (wanted.length < 6 || given.length < 6) return glob(pattern).test(arn);
  for (let segment = 0; segment < 5; segment++)
    if (!glob(wanted[segment] as string).test(given[segment] as string)) return false;
  return glob(wanted.slice(5).join(':')).test(given.slice(5).join(':'));
}

/**
 * The condition keys the statements that could apply to an action test: only those are worth
 * deriving from a request, and only they may make one call's decision differ from another's.
 */
function conditionKeysOf(documents: PolicyDocument[], action: string): Set<string> {
  const keys = new Set<string>();
  for (const document of documents)
    for (const statement of statementsOf(document)) {
      const actions = statement.Action === undefined ? ['*'] : ([statement.Action].flat() as string[]);
      if (statement.Action !== undefined && !actions.some((pattern) => actionMatches(pattern, action))) continue;
      for (const operator of Object.values((statement.Condition ?? {}) as Record<string, Record<string, unknown>>))
        for (const key of Object.keys(operator)) keys.add(key.toLowerCase());
    }
  return keys;
}

/** AWS's explanation of a denial, as its AccessDenied messages word it ("Access denied error messages", IAM User Guide). */
function reasonOf(action: string, denials: ReturnType<typeof getDenialReasons>): string {
  const explicit = denials.find((denial) => denial.denialType === 'Explicit');
  if (explicit?.policyType === 'resource') return 'with an explicit deny in a resource-based policy';
  if (explicit) return 'with an explicit deny in an identity-based policy';
  return `because no identity-based policy allows the ${action} action`;
}

/** Null when allowed; the reason when denied. */
export type Decision = string | null;

/** Decisions evaluated, and calls answered from a decision kept. */
export interface DecisionCounts {
  evaluated: number;
  kept: number;
}

export class PolicyEvaluator {
  private readonly settled = new Map<string, Decision>();
  private readonly pending = new Map<string, Promise<Decision>>();
  private readonly conditionKeys = new Map<string, Set<string>>();
  private readonly resourcePolicy = new Map<string, PolicyDocument | undefined>();
  private evaluated = 0;
  private kept = 0;

  constructor(readonly policies: Policies) {}

  counts(): DecisionCounts {
    return { evaluated: this.evaluated, kept: this.kept };
  }

  /** The resource policy that governs a resource: its bucket's for an object, its own otherwise. */
  resourcePolicyOf(resource: string): PolicyDocument | undefined {
    const owner = resource.startsWith('arn:aws:s3:::') ? `arn:aws:s3:::${resource.slice(13).split('/')[0]}` : resource;
    if (!this.resourcePolicy.has(owner)) {
      const documents = this.policies.resourcePolicies[owner] ?? [];
      this.resourcePolicy.set(
        owner,
        documents.length === 0 ? undefined : { Version: '2012-10-17', Statement: documents.flatMap(statementsOf) },
      );
    }
    return this.resourcePolicy.get(owner);
  }

  private keysOf(identity: Identity, action: string, resourcePolicy: PolicyDocument | undefined): Set<string> {
    const cacheKey = `${identity.roleArn} ${action} ${JSON.stringify(identity.sessionPolicy ?? null)} ${JSON.stringify(resourcePolicy ?? null)}`;
    let keys = this.conditionKeys.get(cacheKey);
    if (!keys) {
      keys = conditionKeysOf(
        [
          ...(this.policies.rolePolicies[identity.roleArn] ?? []),
          ...[resourcePolicy, identity.sessionPolicy].filter((document): document is PolicyDocument =>
            Boolean(document),
          ),
        ],
        action,
      );
      this.conditionKeys.set(cacheKey, keys);
    }
    return keys;
  }

  /**
   * The decision on one action: a kept one at once, a new one once evaluated. The resource policy is
   * the resource's own unless one is given (a role's trust policy, for sts:AssumeRole).
   */
  decide(
    identity: Identity,
    asked: AskedAction,
    resourcePolicy = this.resourcePolicyOf(asked.resource),
  ): Decision | Promise<Decision> {
    const tested = this.keysOf(identity, asked.action, resourcePolicy);
    const context = Object.fromEntries(
      Object.entries(asked.context).filter(([key]) => tested.has(key.toLowerCase())),
    ) as Record<string, string | string[]>;
    const key = `${sessionArn(identity)}\n${JSON.stringify(identity.sessionPolicy ?? null)}\n${asked.action}\n${asked.resource}\n${JSON.stringify(context)}`;
    const known = this.settled.get(key);
    if (known !== undefined) {
      this.kept++;
      return known;
    }
    const inFlight = this.pending.get(key);
    if (inFlight) {
      this.kept++;
      return inFlight;
    }
    // A resource never asked for before (a new object key, say) that the same statements match as one
    // decided before is decided alike: the evaluator sees a resource only through those matches.
    const patternKey = this.patternKeyOf(identity, asked, resourcePolicy, context);
    const alike = patternKey === null ? undefined : this.settled.get(patternKey);
    if (alike !== undefined) {
      this.kept++;
      this.keep(key, alike);
      return alike;
    }
    this.evaluated++;
    const decision = this.evaluate(identity, asked, resourcePolicy, context).then((result) => {
      this.pending.delete(key);
      this.keep(key, result);
      if (patternKey !== null) this.keep(patternKey, result);
      return result;
    });
    decision.catch(() => this.pending.delete(key));
    this.pending.set(key, decision);
    return decision;
  }

  private keep(key: string, decision: Decision): void {
    // A bound on what is kept: object keys and item keys are many.
    if (this.settled.size > 50_000) this.settled.clear();
    this.settled.set(key, decision);
  }

  /**
   * An S3 object's decision key by the Resource patterns that match it: which patterns of each
   * statement match, with its bucket (whose policy is the resource policy). Object keys are many,
   * and each new one would otherwise be evaluated anew; other resources (a table, a queue, a secret)
   * are few. Null for those, and when a pattern holds a policy variable (`${aws:…}`), whose value the
   * evaluator reads from the request.
   */
  private patternKeyOf(
    identity: Identity,
    asked: AskedAction,
    resourcePolicy: PolicyDocument | undefined,
    context: Record<string, string | string[]>,
  ): string | null {
    if (!asked.resource.startsWith('arn:aws:s3:::') || !asked.resource.includes('/')) return null;
    const documents = [
      ...(this.policies.rolePolicies[identity.roleArn] ?? []),
      ...[identity.sessionPolicy, resourcePolicy].filter((document): document is PolicyDocument => Boolean(document)),
    ];
    const matches: string[] = [];
    for (const document of documents)
      for (const statement of statementsOf(document)) {
        const patterns = [statement.Resource ?? statement.NotResource ?? []].flat() as string[];
        if (patterns.some((pattern) => pattern.includes('${'))) return null;
        matches.push(patterns.map((pattern) => (resourceMatches(pattern, asked.resource) ? '1' : '0')).join(''));
      }
    const bucket = asked.resource.slice(13).split('/')[0];
    return `pattern\n${sessionArn(identity)}\n${JSON.stringify(identity.sessionPolicy ?? null)}\n${asked.action}\n${bucket}\n${matches.join(',')}\n${JSON.stringify(context)}`;
  }

  private async evaluate(
    identity: Identity,
    asked: AskedAction,
    resourcePolicy: PolicyDocument | undefined,
    context: Record<string, string | string[]>,
  ): Promise<Decision> {
    const result = await runSimulation(
      {
        request: {
          principal: sessionArn(identity),
          action: asked.action,
          resource: { resource: asked.resource, accountId: localAccount },
          contextVariables: {
            'aws:SecureTransport': 'true',
            'aws:PrincipalArn': identity.roleArn,
            'aws:PrincipalAccount': localAccount,
            ...context,
          },
        },
        identityPolicies: (this.policies.rolePolicies[identity.roleArn] ?? []).map((policy, index) => ({
          name: `${identity.roleArn.split('/').pop()}-${index}`,
          policy,
        })),
        ...(identity.sessionPolicy ? { sessionPolicy: identity.sessionPolicy } : {}),
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        resourcePolicy,
      },
      {},
    );
    if (result.resultType === 'error')
      throw new Error(`IAM evaluation of ${asked.action} on ${asked.resource} failed: ${result.errors.message}`);
    if (result.overallResult === 'Allowed') return null;
    const analysis = result.resultType === 'single' ? result.result.analysis : result.results[0]?.analysis;
    return reasonOf(asked.action, analysis ? getDenialReasons(analysis) : []);
  }
}
