/**
 * IAM, locally: an authorising proxy in front of each stand-in (DynamoDB, S3, SQS) and a small
 * Secrets Manager of its own. Every function calls the local endpoints with credentials of its own
 * (its access key id names it); each call it makes is evaluated against the function's synthesised
 * role (its identity policies) and the resource policy of the bucket, queue or key it touches, by a
 * real policy evaluator (@cloud-copilot/iam-simulate), then forwarded, or refused as the service
 * refuses it on AWS. A request signed with any other key (the local tools', the tests') or none (a
 * tenant's store reached without credentials) is the caller's business and passes as it is.
 *
 * The request context: the caller is the role's session (`assumed-role/<role>/<function>`, as
 * Lambda's credentials are), in the local account, and the call counts as made over TLS
 * (aws:SecureTransport true): the SDK reaches AWS over HTTPS, and the buckets' and queues' policies
 * deny anything else; locally the endpoints are plain HTTP on the loopback.
 *
 * Decisions are kept per function, action, resource and context, so a busy path (the same queue,
 * the same table) is evaluated once; a new object key is evaluated on its first call.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getDenialReasons, runSimulation } from '@cloud-copilot/iam-simulate';
import type { PolicyDocument } from '../cloud-assembly.ts';
import { type AskedAction, accessKeyOf, jsonActions, type Service, s3Actions } from './requests.ts';

export interface FunctionIdentity {
  /** The role session's name: the function's, or the one it gave AssumeRole. */
  functionName: string;
  roleArn: string;
  /** A session policy the session was assumed with (AssumeRole's Policy). */
  sessionPolicy?: PolicyDocument;
}

export interface AuthorizerSetup {
  /** The stand-ins' endpoints. */
  upstream: { dynamodb: string; s3: string; sqs: string };
  /** By access key id. */
  identities: Record<string, FunctionIdentity>;
  rolePolicies: Record<string, PolicyDocument[]>;
  resourcePolicies: Record<string, PolicyDocument[]>;
  /** The secrets local mode serves, by ARN. */
  secrets: Record<string, string>;
  /** Each role's trust policy and tags, by ARN (STS's AssumeRole). */
  roles: Record<string, { trustPolicy: PolicyDocument | undefined; tags: Record<string, string> }>;
  /** The table's partition key attribute (for dynamodb:LeadingKeys). */
  partitionKey: string;
}

export interface Denial {
  functionName: string;
  roleArn: string;
  action: string;
  resource: string;
  /** AWS's words for why: "because no identity-based policy allows the … action", … */
  reason: string;
}

export interface Authorizer {
  endpoints: { dynamodb: string; s3: string; sqs: string; secretsmanager: string; sts: string };
  /** Evaluations made, and answered from the kept decisions. */
  stats(): { evaluated: number; kept: number };
  close(): Promise<void>;
}

const account = '000000000000';

/** The session Lambda's credentials stand for: `arn:aws:sts::<account>:assumed-role/<role>/<function>`. */
const sessionArn = (identity: FunctionIdentity) =>
  `arn:aws:sts::${account}:assumed-role/${identity.roleArn.split('/').pop()}/${identity.functionName}`;

/** The resource policy that governs a resource: its bucket's for an object, its own otherwise. */
function resourcePolicyOf(resource: string, policies: Record<string, PolicyDocument[]>): PolicyDocument | undefined {
  const owner = resource.startsWith('arn:aws:s3:::') ? `arn:aws:s3:::${resource.slice(13).split('/')[0]}` : resource;
  const documents = policies[owner];
  if (!documents || documents.length === 0) return undefined;
  const statements = documents.flatMap((document) =>
    Array.isArray(document.Statement) ? document.Statement : [document.Statement],
  );
  return { Version: '2012-10-17', Statement: statements };
}

/** Whether an action matches a statement's Action pattern (`*` and `?` wildcards, case-insensitive). */
function actionMatches(pattern: string, action: string): boolean {
  const expression = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${expression}$`, 'i').test(action);
}

/**
 * The condition keys the statements that could apply to an action test: only those are worth
 * deriving from a request, and only they may make one call's decision differ from another's.
 */
function conditionKeysOf(documents: PolicyDocument[], action: string): Set<string> {
  const keys = new Set<string>();
  for (const document of documents)
    for (const statement of Array.isArray(document.Statement) ? document.Statement : [document.Statement]) {
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

export function startAuthorizer(setup: AuthorizerSetup, onDenied: (denial: Denial) => void): Promise<Authorizer> {
  const decisions = new Map<string, Promise<string | null>>();
  let evaluated = 0;
  let kept = 0;
  const conditionKeys = new Map<string, Set<string>>();
  const keysOf = (roleArn: string, action: string) => {
    let keys = conditionKeys.get(`${roleArn} ${action}`);
    if (!keys) {
      keys = conditionKeysOf(
        [...(setup.rolePolicies[roleArn] ?? []), ...Object.values(setup.resourcePolicies).flat()],
        action,
      );
      conditionKeys.set(`${roleArn} ${action}`, keys);
    }
    return keys;
  };

  /** Null when allowed; the reason when denied. */
  function decide(
    identity: FunctionIdentity,
    asked: AskedAction,
    resourcePolicy = resourcePolicyOf(asked.resource, setup.resourcePolicies),
  ): Promise<string | null> {
    const tested = new Set([
      ...keysOf(identity.roleArn, asked.action),
      ...conditionKeysOf(
        [resourcePolicy, identity.sessionPolicy].filter((document): document is PolicyDocument => Boolean(document)),
        asked.action,
      ),
    ]);
    const context = Object.fromEntries(
      Object.entries(asked.context).filter(([key]) => tested.has(key.toLowerCase())),
    ) as Record<string, string | string[]>;
    const key = `${sessionArn(identity)}\n${JSON.stringify(identity.sessionPolicy ?? null)}\n${asked.action}\n${asked.resource}\n${JSON.stringify(context)}`;
    const known = decisions.get(key);
    if (known) {
      kept++;
      return known;
    }
    evaluated++;
    const decision = (async () => {
      const result = await runSimulation(
        {
          request: {
            principal: sessionArn(identity),
            action: asked.action,
            resource: { resource: asked.resource, accountId: account },
            contextVariables: {
              'aws:SecureTransport': 'true',
              'aws:PrincipalArn': identity.roleArn,
              'aws:PrincipalAccount': account,
              ...context,
            },
          },
          identityPolicies: (setup.rolePolicies[identity.roleArn] ?? []).map((policy, index) => ({
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
    })();
    if (decisions.size > 50_000) decisions.clear();
    decisions.set(key, decision);
    return decision;
  }

  const agents = {
    dynamodb: new http.Agent({ keepAlive: true, maxSockets: 256 }),
    s3: new http.Agent({ keepAlive: true, maxSockets: 256 }),
    sqs: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  };

  function forward(service: keyof typeof agents, request: IncomingMessage, response: ServerResponse, body?: Buffer) {
    const target = new URL(setup.upstream[service]);
    const outgoing = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
        agent: agents[service],
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', () => response.destroy());
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    if (body) outgoing.end(body);
    else request.pipe(outgoing);
  }

  /** The service's own AccessDenied answer (each service's error shape). */
  function refuse(service: Service, response: ServerResponse, method: string, message: string) {
    const requestId = randomUUID();
    if (service === 's3') {
      // S3: 403 with an XML error; a HEAD request's answer has no body ("Error responses", S3 API Reference).
      const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${message
        .replaceAll('&', '&amp;')
        .replaceAll('<', '&lt;')
        .replaceAll('"', '&quot;')}</Message><RequestId>${requestId}</RequestId><HostId>local</HostId></Error>`;
      response.writeHead(403, { 'content-type': 'application/xml', 'x-amz-request-id': requestId });
      response.end(method === 'HEAD' ? undefined : xml);
      return;
    }
    // DynamoDB, SQS (JSON protocol) and Secrets Manager: 400 AccessDeniedException ("Common Errors",
    // each API Reference); SQS also names its query-protocol code, AccessDenied, in x-amzn-query-error.
    const type =
      service === 'secretsmanager' ? 'AccessDeniedException' : 'com.amazon.coral.service#AccessDeniedException';
    response.writeHead(400, {
      'content-type': service === 'secretsmanager' ? 'application/x-amz-json-1.1' : 'application/x-amz-json-1.0',
      'x-amzn-requestid': requestId,
      ...(service === 'sqs' ? { 'x-amzn-query-error': 'AccessDenied;Sender' } : {}),
    });
    response.end(JSON.stringify({ __type: type, [service === 'sqs' ? 'message' : 'Message']: message }));
  }

  const secretArnOf = (id: string) =>
    Object.keys(setup.secrets).find(
      (arn) =>
        arn === id ||
        arn
          .split(':')
          .pop()
          ?.replace(/-[A-Za-z0-9]{6}$/, '') === id,
    ) ?? id;

  /** Secrets Manager's GetSecretValue and DescribeSecret, for the secrets the deployment names. */
  function serveSecret(target: string, body: Record<string, unknown>, response: ServerResponse) {
    const operation = target.split('.').pop();
    const arn = secretArnOf(String(body.SecretId ?? ''));
    const value = setup.secrets[arn];
    const answer = (status: number, content: object) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
      response.end(JSON.stringify(content));
    };
    if (value === undefined)
      return answer(400, {
        __type: 'ResourceNotFoundException',
        Message: "Secrets Manager can't find the specified secret.",
      });
    const name =
      arn
        .split(':')
        .pop()
        ?.replace(/-[A-Za-z0-9]{6}$/, '') ?? arn;
    if (operation === 'GetSecretValue')
      return answer(200, {
        ARN: arn,
        Name: name,
        VersionId: '00000000-0000-0000-0000-000000000000',
        SecretString: value,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: 0,
      });
    if (operation === 'DescribeSecret') return answer(200, { ARN: arn, Name: name });
    return answer(400, { __type: 'InvalidRequestException', Message: `${operation} is not served locally` });
  }

  /**
   * STS's AssumeRole (query protocol): evaluated as AWS does, against the caller's policies and the
   * role's trust policy (with sts:ExternalId and the role's tags as iam:ResourceTag); the session
   * gets credentials of its own, whose calls are evaluated against the role's policies and the
   * session policy it was assumed with.
   */
  async function assumeRole(caller: FunctionIdentity | undefined, body: URLSearchParams, response: ServerResponse) {
    const requestId = randomUUID();
    const roleArn = body.get('RoleArn') ?? '';
    const sessionName = body.get('RoleSessionName') ?? 'session';
    const role = setup.roles[roleArn];
    const xml = (status: number, content: string) => {
      response.writeHead(status, { 'content-type': 'text/xml', 'x-amzn-requestid': requestId });
      response.end(`<?xml version="1.0" encoding="UTF-8"?>\n${content}`);
    };
    const refuse403 = (message: string) =>
      xml(
        403,
        `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>${message}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    if (body.get('Action') !== 'AssumeRole')
      return xml(
        400,
        `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>${body.get('Action')} is not served locally</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    if (!caller || !role)
      return refuse403(
        `User: ${caller ? sessionArn(caller) : 'anonymous'} is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    const context: Record<string, string | string[]> = {
      ...(body.get('ExternalId') ? { 'sts:ExternalId': body.get('ExternalId') as string } : {}),
      ...Object.fromEntries(Object.entries(role.tags).map(([tag, value]) => [`iam:ResourceTag/${tag}`, value])),
    };
    const denied = await decide(caller, { action: 'sts:AssumeRole', resource: roleArn, context }, role.trustPolicy);
    if (denied !== null) {
      onDenied({ ...caller, action: 'sts:AssumeRole', resource: roleArn, reason: denied });
      return refuse403(
        `User: ${sessionArn(caller)} is not authorized to perform: sts:AssumeRole on resource: ${roleArn} ${denied}`,
      );
    }
    const accessKeyId = `ASIA${randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase()}`;
    const policy = body.get('Policy');
    setup.identities[accessKeyId] = {
      functionName: sessionName,
      roleArn,
      ...(policy ? { sessionPolicy: JSON.parse(policy) as PolicyDocument } : {}),
    };
    const seconds = Number(body.get('DurationSeconds') ?? 3600);
    const session = `arn:aws:sts::${account}:assumed-role/${roleArn.split('/').pop()}/${sessionName}`;
    xml(
      200,
      `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>${accessKeyId}</AccessKeyId><SecretAccessKey>local</SecretAccessKey><SessionToken>local-${accessKeyId}</SessionToken><Expiration>${new Date(Date.now() + seconds * 1000).toISOString()}</Expiration></Credentials><AssumedRoleUser><AssumedRoleId>AROALOCAL:${sessionName}</AssumedRoleId><Arn>${session}</Arn></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
    );
  }

  function handler(service: Service) {
    return (request: IncomingMessage, response: ServerResponse) => {
      const identity = (() => {
        const key = accessKeyOf(request);
        return key ? setup.identities[key] : undefined;
      })();
      const bodyNeeded = service !== 's3' || (request.method === 'POST' && (request.url ?? '').includes('delete'));
      const decideAndGo = async (body?: Buffer) => {
        let asked: AskedAction[] = [];
        let parsed: Record<string, unknown> = {};
        const target = String(request.headers['x-amz-target'] ?? '');
        if (service === 'sts') {
          await assumeRole(identity, new URLSearchParams(body?.toString('utf8') ?? ''), response);
          return;
        }
        if (service === 's3') {
          const keys = body
            ? [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1] ?? '')
            : [];
          const copySource = request.headers['x-amz-copy-source'];
          asked = s3Actions(
            request.method ?? 'GET',
            request.url ?? '/',
            keys,
            typeof copySource === 'string' ? copySource : undefined,
          );
        } else {
          try {
            parsed = body && body.length > 0 ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : {};
          } catch {
            parsed = {};
          }
          asked = jsonActions(service, target, parsed, { partitionKey: setup.partitionKey, secretArn: secretArnOf });
        }
        if (identity) {
          for (const each of asked) {
            const denied = await decide(identity, each);
            if (denied !== null) {
              onDenied({ ...identity, action: each.action, resource: each.resource, reason: denied });
              refuse(
                service,
                response,
                request.method ?? 'GET',
                `User: ${sessionArn(identity)} is not authorized to perform: ${each.action} on resource: ${service === 's3' ? `"${each.resource}"` : each.resource} ${denied}`,
              );
              return;
            }
          }
        }
        if (service === 'secretsmanager') serveSecret(target, parsed, response);
        else forward(service, request, response, body);
      };
      const fail = (error: unknown) => {
        process.stderr.write(`local IAM: ${(error as Error).stack ?? error}\n`);
        if (!response.headersSent) response.writeHead(500).end();
      };
      if (!bodyNeeded) {
        decideAndGo().catch(fail);
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => decideAndGo(Buffer.concat(chunks)).catch(fail));
    };
  }

  const services: Service[] = ['dynamodb', 's3', 'sqs', 'secretsmanager', 'sts'];
  const servers = services.map((service) => {
    const server = http.createServer(handler(service));
    server.keepAliveTimeout = 65_000;
    return server;
  });
  return Promise.all(
    servers.map(
      (server) =>
        new Promise<string>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
        }),
    ),
  ).then(([dynamodb, s3, sqs, secretsmanager, sts]) => ({
    endpoints: {
      dynamodb: dynamodb as string,
      s3: s3 as string,
      sqs: sqs as string,
      secretsmanager: secretsmanager as string,
      sts: sts as string,
    },
    stats: () => ({ evaluated, kept }),
    async close() {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
      for (const agent of Object.values(agents)) agent.destroy();
    },
  }));
}
