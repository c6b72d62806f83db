/**
 * The deploy, rehearsed at every start: what CloudFormation and the services it creates resources
 * in run while a stack deploys, run here against the local resources, with the deployed functions.
 *
 *  - Custom resources (AWS::CloudFormation::CustomResource, Custom::*), in the template's creation
 *    order (local/deploy/order.ts): CloudFormation's request, as "Custom resource request and
 *    response reference" gives it (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/crpg-ref.html):
 *    RequestType, ResponseURL, StackId, RequestId, ResourceType, LogicalResourceId, ResourceProperties,
 *    and for Update and Delete PhysicalResourceId (and for Update OldResourceProperties). Create when
 *    the resource is new, Update when its properties changed since the last start's deploy, Delete
 *    when it left the template (after everything else, last created first, as CloudFormation's
 *    cleanup does). A function behind the ServiceToken answers at the ResponseURL, which this
 *    module serves on 127.0.0.1 (in place of the presigned S3 URL); CDK's provider framework
 *    (https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.custom_resources-readme.html) is run as
 *    it runs: its onEvent handler is invoked with the request, and its return value is the response
 *    (PhysicalResourceId defaulting to the RequestId on Create and to the current one otherwise; a
 *    Delete may not change it; a thrown error is a FAILED response with the error's message).
 *  - Rotation schedules (AWS::SecretsManager::RotationSchedule), created or updated: a rotation, or
 *    the configuration test when RotateImmediatelyOnUpdate is false (local/deploy/rotation.ts).
 *
 * A FAILED response, a function that fails or never answers, or a rotation that fails fails the
 * start with the resource's reason, as a failed resource fails a deploy. What the deploy did is kept
 * in a state file (each resource's type, physical id and properties), written whole after every
 * resource that succeeded, so that the next start carries on from there, as a deploy after
 * `cdk deploy --no-rollback` does.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as z from 'zod';
import type { DeployStep } from '../cloud-assembly.ts';
import { type Rotation, type RotationEvent, rotate, testRotation } from './rotation.ts';
import type { LocalSecretsManager } from './secrets-manager.ts';

const deployedSchema = z.object({
  resources: z.record(
    z.string(),
    z.object({
      kind: z.enum(['customResource', 'rotationSchedule']),
      type: z.string(),
      stackId: z.string(),
      logicalId: z.string(),
      physicalResourceId: z.string(),
      properties: z.record(z.string(), z.unknown()),
      /** The function that handled it, and how (a Delete goes to the same). */
      functionId: z.string(),
      via: z.enum(['lambda', 'providerFramework', 'secretsManager']),
    }),
  ),
});
export type Deployed = z.infer<typeof deployedSchema>;
type DeployedResource = Deployed['resources'][string];

export function readDeployed(file: string): Deployed {
  return existsSync(file) ? deployedSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) : { resources: {} };
}

function writeDeployed(file: string, deployed: Deployed): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.partial`, `${JSON.stringify(deployed, null, 1)}\n`);
  renameSync(`${file}.partial`, file);
}

export interface RehearsalDeps {
  /** Where the last deploy's resources are kept. */
  stateFile: string;
  /** Invokes a function of the deployment with an event, as Lambda does (rejects with its error). */
  invoke(functionId: string, event: unknown): Promise<unknown>;
  /** Whether the deployment has the function (a removed resource's may have left with it). */
  hasFunction(functionId: string): boolean;
  secrets: LocalSecretsManager;
}

/** What a start's deploy did: one line per resource that had work, and those it could not rehearse. */
export interface RehearsalReport {
  done: string[];
  notRehearsed: string[];
}

export type CustomResourceRequest = {
  RequestType: 'Create' | 'Update' | 'Delete';
  ServiceToken: string;
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  ResourceType: string;
  LogicalResourceId: string;
  ResourceProperties: Record<string, unknown>;
  PhysicalResourceId?: string;
  OldResourceProperties?: Record<string, unknown>;
};

const responseSchema = z.object({
  Status: z.enum(['SUCCESS', 'FAILED']),
  Reason: z.string().optional(),
  PhysicalResourceId: z.string().optional(),
});

const frameworkResultSchema = z.object({ PhysicalResourceId: z.string().optional() }).passthrough().nullish();

/** The ResponseURLs: one per request, answered by a PUT of the response's JSON. */
class ResponseUrls {
  private readonly responses = new Map<string, string>();
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = (request.url ?? '').split('/').pop() ?? '';
      if (request.method !== 'PUT' || !this.expected.has(id)) {
        response.writeHead(403).end();
        return;
      }
      this.responses.set(id, Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200).end();
    });
  });
  private readonly expected = new Set<string>();
  private base: string | null = null;

  async url(requestId: string): Promise<string> {
    if (this.base === null) {
      await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
      this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    }
    this.expected.add(requestId);
    return `${this.base}/responses/${requestId}`;
  }

  take(requestId: string): string | undefined {
    this.expected.delete(requestId);
    return this.responses.get(requestId);
  }

  async close(): Promise<void> {
    if (this.base === null) return;
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** One request to a custom resource's provider: its physical id, or an error with the reason. */
async function sendRequest(
  request: Omit<CustomResourceRequest, 'ResponseURL'>,
  provider: { functionId: string; via: 'lambda' | 'providerFramework' },
  deps: RehearsalDeps,
  urls: ResponseUrls,
): Promise<string> {
  const where = `${request.LogicalResourceId} (${request.ResourceType}, ${request.RequestType})`;
  const event: CustomResourceRequest = { ...request, ResponseURL: await urls.url(request.RequestId) };
  if (provider.via === 'providerFramework') {
    let result: unknown;
    try {
      result = await deps.invoke(provider.functionId, event);
    } catch (error) {
      urls.take(request.RequestId);
      throw new Error(`${where} failed: ${(error as Error).message}`);
    }
    urls.take(request.RequestId);
    // The framework reads the PhysicalResourceId of an object returned; anything else answers nothing.
    const returned = frameworkResultSchema.safeParse(result).data?.PhysicalResourceId;
    const physicalResourceId =
      returned ?? (request.RequestType === 'Create' ? request.RequestId : (request.PhysicalResourceId ?? ''));
    if (request.RequestType === 'Delete' && physicalResourceId !== request.PhysicalResourceId)
      throw new Error(`${where} failed: a Delete cannot change the physical resource id`);
    return physicalResourceId;
  }
  const invocationError = await deps.invoke(provider.functionId, event).then(
    () => null,
    (error: Error) => error,
  );
  const body = urls.take(request.RequestId);
  if (body === undefined)
    throw new Error(
      `${where} failed: its function ended without a response at the ResponseURL${invocationError ? ` (${invocationError.message})` : ''}; CloudFormation would wait for one until the ServiceTimeout`,
    );
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${where} failed: its response is not one CloudFormation reads`);
  if (parsed.data.Status === 'FAILED') throw new Error(`${where} failed: ${parsed.data.Reason ?? 'no reason given'}`);
  return parsed.data.PhysicalResourceId ?? request.PhysicalResourceId ?? request.RequestId;
}

const sameProperties = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * Runs the deploy of `steps` (in creation order) against the state the last start's deploy left;
 * resolves with what it did, or rejects with the first failed resource's reason.
 */
export async function rehearseDeploy(steps: DeployStep[], deps: RehearsalDeps): Promise<RehearsalReport> {
  const deployed = readDeployed(deps.stateFile);
  const report: RehearsalReport = { done: [], notRehearsed: [] };
  const urls = new ResponseUrls();
  const record = (id: string, resource: DeployedResource | null) => {
    if (resource) deployed.resources[id] = resource;
    else delete deployed.resources[id];
    writeDeployed(deps.stateFile, deployed);
  };
  try {
    for (const step of steps) {
      const { action } = step;
      if (action.kind === 'notRehearsed') {
        report.notRehearsed.push(`${step.logicalId} (${step.type}): ${action.why}`);
        continue;
      }
      const before = deployed.resources[step.id];
      if (before && sameProperties(before.properties, step.properties)) continue;
      const requestType = before ? 'Update' : 'Create';
      if (action.kind === 'customResource') {
        const physicalResourceId = await sendRequest(
          {
            RequestType: requestType,
            ServiceToken: String(step.properties.ServiceToken ?? ''),
            StackId: step.stackId,
            RequestId: randomUUID(),
            ResourceType: step.type,
            LogicalResourceId: step.logicalId,
            ResourceProperties: step.properties,
            ...(before
              ? { PhysicalResourceId: before.physicalResourceId, OldResourceProperties: before.properties }
              : {}),
          },
          action,
          deps,
          urls,
        );
        record(step.id, {
          kind: 'customResource',
          type: step.type,
          stackId: step.stackId,
          logicalId: step.logicalId,
          physicalResourceId,
          properties: step.properties,
          functionId: action.functionId,
          via: action.via,
        });
        report.done.push(`${step.logicalId} (${step.type}): ${requestType}`);
        continue;
      }
      const rotation: Rotation = {
        secrets: deps.secrets,
        secretArn: action.secretArn,
        invoke: (event: RotationEvent) => deps.invoke(action.functionId, event),
      };
      try {
        if (action.rotateImmediately) await rotate(rotation);
        else await testRotation(rotation);
      } catch (error) {
        throw new Error(
          `${step.logicalId} (${step.type}, ${requestType}) failed: Secrets Manager's ${action.rotateImmediately ? 'rotation' : 'test of the rotation configuration (testSecret on a new AWSPENDING version)'} failed: ${(error as Error).message}`,
        );
      }
      record(step.id, {
        kind: 'rotationSchedule',
        type: step.type,
        stackId: step.stackId,
        logicalId: step.logicalId,
        physicalResourceId: action.secretArn,
        properties: step.properties,
        functionId: action.functionId,
        via: 'secretsManager',
      });
      report.done.push(
        `${step.logicalId} (${step.type}): ${requestType}, ${action.rotateImmediately ? 'rotated (createSecret, setSecret, testSecret, finishSecret)' : 'configuration tested (testSecret)'}`,
      );
    }
    // Cleanup: what left the template, last created first. A rotation schedule's removal turns
    // rotation off, which nothing local keeps; a custom resource gets its Delete.
    const kept = new Set(steps.map((step) => step.id));
    for (const [id, resource] of Object.entries(deployed.resources).reverse()) {
      if (kept.has(id)) continue;
      if (resource.via !== 'secretsManager' && !deps.hasFunction(resource.functionId))
        // On AWS the old function still exists while the cleanup deletes the resource; locally only
        // the current assembly's code is at hand.
        report.notRehearsed.push(
          `${resource.logicalId} (${resource.type}): its Delete, since its function left the template with it`,
        );
      else if (resource.via === 'lambda' || resource.via === 'providerFramework')
        await sendRequest(
          {
            RequestType: 'Delete',
            ServiceToken: String(resource.properties.ServiceToken ?? ''),
            StackId: resource.stackId,
            RequestId: randomUUID(),
            ResourceType: resource.type,
            LogicalResourceId: resource.logicalId,
            ResourceProperties: resource.properties,
            PhysicalResourceId: resource.physicalResourceId,
          },
          { functionId: resource.functionId, via: resource.via },
          deps,
          urls,
        );
      record(id, null);
      report.done.push(`${resource.logicalId} (${resource.type}): Delete`);
    }
    return report;
  } finally {
    await urls.close();
  }
}
