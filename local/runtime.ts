/**
 * The service itself, locally: the functions of the cloud assembly `cdk deploy` deploys, each from
 * its own asset folder with the template's settings (local/cloud-assembly.ts). The HTTP front runs
 * on this thread and invokes each route's function here; every queue consumer and schedule runs in
 * a worker thread of its own. The stand-ins it talks to may run in the same process (npm start) or
 * elsewhere (the tests start them once for every runtime).
 *
 * Why threads: on AWS the ingest function never shares a CPU with the batch writer. In one event
 * loop, the writer's CPU-bound work (Parquet encoding, hundreds of commits per window) held every
 * webhook's answer back for seconds. A thread has its own event loop and the OS runs it on another
 * core; unlike a child process it stops with this process (a crash or kill -9 leaves nothing
 * running), receives no signal of its own (Ctrl-C to the process group reaches the front, which
 * leads the stop), and needs no pid file. A thread that dies (an uncaught error, a heap out of
 * memory) is started again; the records it held come back after the visibility timeout, as they
 * do when a Lambda invocation dies.
 */

import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { keyAttributes } from '#shared/adapters/dynamo/table-schema.ts';
import { schedules as declaredSchedules, type QueueName, queues, type ScheduleName } from '#shared/topology.ts';
import { ensureAssembly } from './assembly.ts';
import { type LocalDeployment, type LocalFunction, readDeployment } from './cloud-assembly.ts';
import { settleBootstrapKey } from './deploy/bootstrap-key.ts';
import { checkReservedConcurrency } from './deploy/concurrency.ts';
import { rehearseDeploy } from './deploy/rehearsal.ts';
import { LocalSecretsManager, type SecretSource } from './deploy/secrets-manager.ts';
import { queueDepth } from './event-source-poller.ts';
import {
  type FromHost,
  type FunctionReports,
  type HostedFunction,
  type HostedRunning,
  hostedKey,
  hostFunction,
  type ToHost,
} from './function-host.ts';
import { type HttpFront, startHttpFront } from './http-front.ts';
import { enforceIam, type IamSetup } from './iam/enforcement.ts';
import { startLocalServices } from './iam/local-services.ts';
import type { DecisionCounts, Denial, Identity } from './iam/policy-evaluator.ts';
import type { Service } from './iam/requests.ts';
import { LocalLambda, lambdaVariables } from './lambda-function.ts';
import { installFunctionScopes } from './lambda-sandbox.ts';
import { startThread } from './modules.ts';
import type { QueueUrls } from './provision.ts';
import { standInBucket, standInClient, startExpiry } from './s3/lifecycle.ts';
import { functionSettingNames, type LocalSettings } from './settings.ts';
import { type Endpoints, localCredentials, localRegion } from './stand-ins.ts';

/** The environment of the local process, which its own calls (provisioning, the bootstrap key) read. */
export function handlerEnvironment(
  settings: LocalSettings,
  endpoints: Endpoints,
  queueUrls: QueueUrls,
): Record<string, string> {
  return {
    AWS_REGION: localRegion,
    AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    S3_FORCE_PATH_STYLE: 'true',
    TABLE_NAME: settings.tableName,
    PLATFORM_BUCKET: settings.platformBucket,
    ...Object.fromEntries((Object.keys(queues) as QueueName[]).map((name) => [queues[name].envVar, queueUrls[name]])),
    POWERTOOLS_SERVICE_NAME: 'tributary',
    // One thread runs several invocations of a function at once (the front: of every route), as a
    // multi-concurrent Lambda environment does: each invocation's logger context is its own
    // (shared/observability/invocation.ts).
    AWS_LAMBDA_MAX_CONCURRENCY: '1000',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: settings.logLevel,
    ALLOWED_STORE_ENDPOINTS: settings.allowedStoreEndpoints,
    // A table whose staged commit failed is tried again as the local queue would deliver again.
    COMMIT_RETRY_SECONDS: String(settings.visibilityTimeoutSeconds),
  };
}

/**
 * Which of the local process's variables reach every function besides its template's: the
 * endpoints, region and credentials, the SDK's and Powertools' settings, the path style the S3
 * stand-in needs, and the service's own settings (local/settings.ts). The template's resource
 * variables (table, bucket, queues, secrets) are the template's alone.
 */
const reachesFunctions = (name: string) =>
  (name.startsWith('AWS_') && !name.startsWith('AWS_LAMBDA_FUNCTION')) ||
  name.startsWith('POWERTOOLS_') ||
  name === 'S3_FORCE_PATH_STYLE' ||
  name === 'ALLOWED_STORE_ENDPOINTS' ||
  (functionSettingNames as readonly string[]).includes(name);

/**
 * The access key a function's calls are signed with, which names it to local IAM (letters and
 * digits only: DynamoDB Local refuses any other key).
 */
export const accessKeyOf = (fn: LocalFunction) => `LOCAL${fn.name.replace(/[^A-Za-z0-9]/g, '')}`;

/**
 * A function's whole environment: the template's variables, those Lambda sets (its own
 * credentials among them), and local mode's: the local AWS endpoints.
 */
export function functionEnvironment(
  fn: LocalFunction,
  local: Record<string, string | undefined>,
  logLevel: string,
  endpoints: Record<Service, string>,
): Record<string, string> {
  const ownSettings = Object.fromEntries(
    Object.entries(local).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && reachesFunctions(entry[0]),
    ),
  );
  // NODE_OPTIONS (source maps) is for the process: the local one has them on for every function.
  const { NODE_OPTIONS: _nodeOptions, ...template } = fn.environment;
  return {
    ...template,
    ...lambdaVariables(fn, logLevel),
    ...ownSettings,
    AWS_ACCESS_KEY_ID: accessKeyOf(fn),
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsmanager,
    AWS_ENDPOINT_URL_STS: endpoints.sts,
  };
}

/** What local mode counts of its own beside the service's metrics: AWS's refusals and Lambda's timeouts. */
class LocalFigures {
  readonly denied = new Map<string, { denial: Denial; count: number }>();
  readonly timeouts = new Map<string, number>();

  timedOut(functionName: string): void {
    this.timeouts.set(functionName, (this.timeouts.get(functionName) ?? 0) + 1);
  }

  deny(denial: Denial): void {
    const key = `${denial.functionName}\n${denial.action}\n${denial.resource}`;
    const known = this.denied.get(key) ?? { denial, count: 0 };
    known.count++;
    this.denied.set(key, known);
  }

  /** Prometheus lines, appended to the service's own at /metrics. */
  exposition(): string {
    const quoted = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    const lines = [
      '# HELP tributary_local_access_denied_total AWS calls a function made that its role does not allow (local mode evaluates every call; on AWS they fail as AccessDenied)',
      '# TYPE tributary_local_access_denied_total counter',
      ...[...this.denied.values()].map(
        ({ denial, count }) =>
          `tributary_local_access_denied_total{function="${quoted(denial.functionName)}",action="${quoted(denial.action)}",resource="${quoted(denial.resource)}"} ${count}`,
      ),
      "# HELP tributary_local_function_timeouts_total Invocations stopped at their function's timeout",
      '# TYPE tributary_local_function_timeouts_total counter',
      ...[...this.timeouts].map(
        ([name, count]) => `tributary_local_function_timeouts_total{function="${quoted(name)}"} ${count}`,
      ),
    ];
    return `${lines.join('\n')}\n`;
  }
}

export interface Runtime {
  url: string;
  front: HttpFront;
  /**
   * Graceful stop: the front answers new requests 503 and waits for those in flight; consumers keep
   * writing until the queues they consume are empty (or the drain timeout passes, or `hurry` is
   * called), then stop and hand back what they hold; schedules stop; the front closes last.
   * Answers how many messages are still queued (kept by the queues for the next start).
   */
  stop(): Promise<{ undrained: number }>;
  /** Ends the drain of a stop now: what is queued stays queued. */
  hurry(): void;
  /** What the start's deploy checked and did (local/deploy/), and the bootstrap key it left. */
  deployed: Deployed;
}

export interface Deployed {
  /** The bootstrap key secret's current value (null: the template has no such secret). */
  bootstrapKey: string | null;
  /** What was checked, done and left out, one line each, for the start's output. */
  lines: string[];
}

export interface RuntimeOptions {
  /**
   * Where consumers and schedules run: each in a thread of its own (the default, as `npm start`
   * runs), or on this thread, where a bench that meters every invocation in one place sees them.
   */
  functions?: 'threads' | 'this-thread';
  /** Where a function thread's unexpected end is told (stderr by default). */
  log?: (line: string) => void;
  /** The deployment to run (default: the current cloud assembly, synthesised if need be). */
  deployment?: LocalDeployment;
  /**
   * The bootstrap key an operator names (ADMIN_API_KEY, or the one kept from an earlier start):
   * the deploy rotates the secret to it when it holds another (local/deploy/bootstrap-key.ts).
   */
  bootstrapKey?: string | null;
  /**
   * Called once the deploy is done and before anything serves: what must hold by the time the front
   * answers (`npm start` keeps the bootstrap key in DATA_DIR here, so that a caller who sees /health
   * answer finds the key too).
   */
  onDeployed?: (deployed: Deployed) => void;
}

/**
 * Whether a scheduled function runs once more at a graceful stop, and its time limit then: its
 * declaration says so (shared/topology.ts).
 */
function runsAtStop(fn: LocalFunction): { timeoutSeconds: number } | null {
  const declared = fn.declared?.kind === 'schedule' ? declaredSchedules[fn.declared.name as ScheduleName] : undefined;
  return declared?.runsAtStop ?? null;
}

/** Every queue consumer and schedule of the deployment, as the functions to host. */
function asynchronousFunctions(
  deployment: LocalDeployment,
  settings: LocalSettings,
  environment: (fn: LocalFunction) => Record<string, string>,
  iam: IamSetup,
): HostedFunction[] {
  const fnOf = (id: string) => deployment.functions.get(id) as LocalFunction;
  const consumers: HostedFunction[] = deployment.eventSources
    .filter((source) => source.enabled)
    .map((source) => {
      const fn = fnOf(source.functionId);
      const limits = [settings.pollersPerConsumer, source.maximumConcurrency, fn.reservedConcurrency];
      return {
        kind: 'consumer',
        fn,
        env: environment(fn),
        iam,
        queueUrl: source.queueUrl,
        queueArn: source.queueArn,
        batchSize: source.batchSize,
        batchingWindowSeconds: settings.batchWindowSeconds ?? source.batchingWindowSeconds,
        concurrency: Math.min(...limits.filter((limit): limit is number => limit !== null)),
      };
    });
  const scheduled: HostedFunction[] = deployment.schedules
    .filter((schedule) => schedule.enabled)
    .map((schedule) => {
      const fn = fnOf(schedule.functionId);
      return {
        kind: 'schedule',
        fn,
        env: environment(fn),
        iam,
        intervalSeconds: settings.scheduleSecondsOverride ?? schedule.intervalSeconds,
        runsAtStop: runsAtStop(fn),
      };
    });
  return [...consumers, ...scheduled];
}

/** After a thread's unexpected end, the wait before it starts again: doubling, up to this. */
const restartDelaysMs = { first: 1000, max: 30_000 };
/** A thread that ran this long before it ended starts again after the first delay. */
const healthyRunMs = 60_000;

/**
 * One function in a thread of its own, started again whenever it ends unexpectedly. Resolves once
 * the function is ready the first time; a function that cannot start fails the start.
 */
export async function startFunctionThread(
  hosted: HostedFunction,
  options: { log?: (line: string) => void; report?: FunctionReports; env?: NodeJS.ProcessEnv } = {},
): Promise<HostedRunning> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let stopping = false;
  let everReady = false;
  let current: { worker: Worker; ended: Promise<void> } | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let delayMs = restartDelaysMs.first;

  const launch = () =>
    new Promise<void>((ready, failed) => {
      const worker = startThread('local/function-host.ts', {
        workerData: { [hostedKey]: hosted },
        // The SDK's warning about this Node version: the front's thread has given it already.
        env: { ...(options.env ?? process.env), AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      const startedAt = Date.now();
      let reason = '';
      worker.on('message', (message: FromHost) => {
        if (message.type === 'timedOut')
          (options.report?.timedOut ?? ((_, line) => log(line)))(hosted.fn.name, message.line);
        if (message.type === 'denied') options.report?.denied(message.denial);
        if (message.type !== 'ready') return;
        everReady = true;
        ready();
      });
      worker.on('error', (error) => {
        reason = error.stack ?? error.message;
      });
      const ended = new Promise<void>((resolve) =>
        worker.once('exit', (code) => {
          resolve();
          if (stopping) return;
          const why = reason || `it exited with code ${code}`;
          if (!everReady) {
            failed(new Error(`The ${hosted.fn.name} function could not start: ${why}`));
            return;
          }
          if (Date.now() - startedAt > healthyRunMs) delayMs = restartDelaysMs.first;
          log(
            `function ${hosted.fn.name} ended unexpectedly (${why}); starting it again in ${delayMs / 1000} s` +
              (hosted.kind === 'consumer' ? '; the records it held come back after the visibility timeout' : ''),
          );
          restartTimer = setTimeout(() => void launch(), delayMs);
          delayMs = Math.min(delayMs * 2, restartDelaysMs.max);
        }),
      );
      current = { worker, ended };
    });

  await launch();

  return {
    async stop(options) {
      stopping = true;
      clearTimeout(restartTimer);
      const running = current;
      if (!running) return undefined;
      const stopped = new Promise<DecisionCounts>((resolve) =>
        running.worker.on('message', (message: FromHost) => {
          if (message.type === 'stopped') resolve(message.decisions);
        }),
      );
      running.worker.postMessage({ type: 'stop', final: options?.final === true } satisfies ToHost);
      const decisions = await Promise.race([stopped, running.ended.then(() => undefined)]);
      await running.worker.terminate();
      return decisions;
    },
  };
}

export async function startRuntime(
  settings: LocalSettings,
  env: Record<string, string>,
  queueUrls: QueueUrls,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  Object.assign(process.env, env);
  const sqsEndpoint = env.AWS_ENDPOINT_URL_SQS as string;
  const deployment =
    options.deployment ??
    readDeployment((await ensureAssembly({ tenantBuckets: settings.buckets, log: options.log })).directory, {
      tableName: settings.tableName,
      platformBucket: settings.platformBucket,
      queuePrefix: queuePrefixOf(queueUrls),
      sqsEndpoint: new URL(queueUrls.ingest).origin,
    });
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Lambda refuses a reservation that leaves less than 100 unreserved: the deploy fails there, first.
  const concurrency = checkReservedConcurrency(
    [...deployment.functions.values()].map((fn) => ({
      functionName: fn.name,
      reservedConcurrency: fn.reservedConcurrency,
    })),
    settings.accountConcurrency,
  );

  // Every function's calls are held to its role where they are made (local/iam/enforcement.ts).
  const figures = new LocalFigures();
  const deployFunctions = deployment.deploySteps.flatMap((step) =>
    step.action.kind === 'notRehearsed' ? [] : [step.action.functionId],
  );
  const hosted = new Set([
    ...deployment.routes.map((route) => route.functionId),
    ...deployment.eventSources.map((source) => source.functionId),
    ...deployment.schedules.map((schedule) => schedule.functionId),
    ...deployFunctions,
  ]);
  const identities: Record<string, Identity> = {};
  for (const id of hosted) {
    const fn = deployment.functions.get(id) as LocalFunction;
    if (fn.roleArn) identities[accessKeyOf(fn)] = { functionName: fn.name, roleArn: fn.roleArn };
  }
  // A local deployment is its table: the state of its deploy and its secrets are kept per table.
  const deploymentDirectory = path.join(settings.dataDir, 'deployments', settings.tableName);
  const secrets = new LocalSecretsManager(
    new Map(
      [...deployment.secrets].map(([arn, kind]): [string, SecretSource] => [
        arn,
        // Local mode keeps one key material (SECRETS_KEY) for the stored secrets and the cursors.
        kind === 'bootstrapKey'
          ? { generate: deployment.generatedSecrets.get(arn) ?? { length: 32 } }
          : { value: env.SECRETS_KEY ?? '' },
      ]),
    ),
    path.join(deploymentDirectory, 'secrets-manager.json'),
  );
  const services = await startLocalServices({ secrets, roleArns: [...deployment.roles.keys()] });
  const endpoints: Record<Service, string> = {
    dynamodb: env.AWS_ENDPOINT_URL_DYNAMODB as string,
    s3: env.AWS_ENDPOINT_URL_S3 as string,
    sqs: sqsEndpoint,
    ...services.endpoints,
  };
  const iam: IamSetup = {
    addresses: Object.fromEntries([
      ...Object.entries(endpoints).map(([service, url]) => [new URL(url).origin, service]),
      [new URL(deployment.queueUrls.ingest).origin, 'sqs'],
    ]),
    identities,
    rolePolicies: Object.fromEntries(deployment.rolePolicies),
    resourcePolicies: Object.fromEntries(deployment.resourcePolicies),
    roles: Object.fromEntries(deployment.roles),
    partitionKey: keyAttributes.partition,
    secretArns: [...deployment.secrets.keys()],
  };
  const report: FunctionReports = {
    timedOut(functionName, line) {
      figures.timedOut(functionName);
      log(line);
    },
    denied(denial) {
      figures.deny(denial);
      log(
        `AccessDenied: ${denial.functionName} is not authorized to perform ${denial.action} on ${denial.resource} ${denial.reason} (role ${denial.roleArn}); on AWS this call fails the same way`,
      );
    },
  };
  const environment = (fn: LocalFunction) =>
    functionEnvironment(fn, { ...process.env, ...env }, settings.logLevel, endpoints);
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: localRegion, credentials: localCredentials });
  const host = (hosted: HostedFunction) =>
    options.functions === 'this-thread' ? hostFunction(hosted, report) : startFunctionThread(hosted, { log, report });

  // Routes run on this thread, each function loaded at its first request (its cold start).
  installFunctionScopes();
  const enforcement = enforceIam(iam, (denial) => report.denied(denial));

  // The deploy's own work (custom resources, rotation schedules), before anything serves.
  const deployLambdas = new Map<string, LocalLambda>();
  const invoke = (functionId: string, event: unknown) => {
    const fn = deployment.functions.get(functionId);
    if (!fn) return Promise.reject(new Error(`no function ${functionId} in the deployment`));
    const lambda =
      deployLambdas.get(functionId) ?? new LocalLambda(fn, environment(fn), (line) => report.timedOut(fn.name, line));
    deployLambdas.set(functionId, lambda);
    return lambda.invoke(event);
  };
  let deployed: Deployed;
  const deployStartedAt = Date.now();
  try {
    const rehearsal = await rehearseDeploy(deployment.deploySteps, {
      stateFile: path.join(deploymentDirectory, 'resources.json'),
      invoke,
      hasFunction: (functionId) => deployment.functions.has(functionId),
      secrets,
    });
    const bootstrapKey = await settleBootstrapKey(deployment, secrets, invoke, options.bootstrapKey ?? null);
    deployed = {
      bootstrapKey,
      lines: [
        `Reserved concurrency: ${concurrency.reserved} of the account's ${concurrency.accountConcurrency} reserved, ${concurrency.unreserved} unreserved (Lambda keeps at least 100)`,
        `Deploy (${((Date.now() - deployStartedAt) / 1000).toFixed(1)} s): ${rehearsal.done.length > 0 ? rehearsal.done.join('; ') : 'no custom resource or rotation schedule changed since the last start'}`,
        ...(rehearsal.notRehearsed.length > 0 ? [`Deploy, not rehearsed: ${rehearsal.notRehearsed.join('; ')}`] : []),
      ],
    };
    options.onDeployed?.(deployed);
  } catch (error) {
    await services.close();
    throw error;
  }
  const routeFunctions = new Map<string, LocalLambda>();
  for (const route of deployment.routes) {
    const fn = deployment.functions.get(route.functionId) as LocalFunction;
    if (!routeFunctions.has(fn.id))
      routeFunctions.set(fn.id, new LocalLambda(fn, environment(fn), (line) => report.timedOut(fn.name, line)));
  }
  const routes = deployment.routes.map((route) => ({
    routeKey: route.routeKey,
    target: route.functionId,
    timeoutSeconds: deployment.functions.get(route.functionId)?.timeoutSeconds,
  }));
  const [front, functions] = await Promise.all([
    startHttpFront({
      port: settings.port,
      host: settings.host,
      routes,
      loadHandler: async (target) => {
        const lambda = routeFunctions.get(target) as LocalLambda;
        return async (event, context) => {
          const result = (await lambda.invoke(event, {
            requestId: context.awsRequestId,
          })) as APIGatewayProxyStructuredResultV2;
          // Local mode's own figures follow the platform's, where an operator scrapes them (not each
          // shard of the sources' series: a figure in one scrape target only).
          if (
            event.routeKey === 'GET /metrics' &&
            event.queryStringParameters?.shards === undefined &&
            result.statusCode === 200 &&
            !result.isBase64Encoded
          )
            return { ...result, body: `${result.body ?? ''}${figures.exposition()}` };
          return result;
        };
      },
    }),
    Promise.all(
      asynchronousFunctions(deployment, settings, environment, iam).map(async (each) => ({
        kind: each.kind,
        running: await host(each),
      })),
    ),
  ]);

  // s3rver runs no lifecycle rules: local mode applies the platform bucket's itself.
  const s3 = standInClient(endpoints.s3, localRegion, localCredentials);
  const expiry = startExpiry({
    bucket: standInBucket(s3, settings.platformBucket),
    rules: deployment.platformBucketExpiry,
    log,
  });

  const consumed = [...new Set(deployment.eventSources.map((source) => source.queueUrl))];
  let deadline = Number.POSITIVE_INFINITY;
  return {
    url: front.url,
    front,
    deployed,
    hurry() {
      deadline = 0;
    },
    async stop() {
      await front.refuse();
      deadline = Math.min(deadline, Date.now() + settings.drainTimeoutSeconds * 1000);
      const queued = async () =>
        (await Promise.all(consumed.map((url) => queueDepth(sqs, url)))).reduce((sum, depth) => sum + depth, 0);
      while ((await queued()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      // Consumers first, so that what they staged last is there for the schedules' final runs
      // (everything staged is committed), which a hurried stop skips: staged envelopes are safe.
      const decisions: (DecisionCounts | undefined)[] = [enforcement.evaluator.counts()];
      decisions.push(
        ...(await Promise.all(
          functions.filter(({ kind }) => kind === 'consumer').map(({ running }) => running.stop()),
        )),
      );
      const final = Date.now() < deadline;
      decisions.push(
        ...(await Promise.all(
          functions.filter(({ kind }) => kind === 'schedule').map(({ running }) => running.stop({ final })),
        )),
      );
      await front.close();
      await expiry.stop();
      s3.destroy();
      const undrained = await queued();
      sqs.destroy();
      const denied = [...figures.denied.values()].reduce((sum, { count }) => sum + count, 0);
      const sum = (name: 'evaluated' | 'kept') => decisions.reduce((total, counts) => total + (counts?.[name] ?? 0), 0);
      log(
        `IAM: ${sum('evaluated')} decisions evaluated against the functions' roles, ${sum('kept')} calls answered from decisions kept, ${denied} denied`,
      );
      await services.close();
      return { undrained };
    },
  };
}

/** The prefix of the local queue names, from the ingest queue's URL (`…/000000000000/<prefix>ingest`). */
function queuePrefixOf(queueUrls: QueueUrls): string {
  const name = queueUrls.ingest.split('/').pop() ?? '';
  return name.slice(0, name.length - queues.ingest.name.length);
}
