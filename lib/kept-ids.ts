/**
 * Logical ids that a running deployment depends on, kept as the stack first had them.
 *
 * CloudFormation replaces a resource whose logical id changes: it creates the new one, then deletes
 * the old. For most of the stateless stack that is harmless (a function, its role, a rule), but not
 * for these:
 *  - the HTTP API: a new one has a new address, and every webhook sender and API caller holds the
 *    old one;
 *  - its `$default` route and stage, and the nested stacks that hold its routes: the new ones would
 *    be created on the same API beside the old (API Gateway refuses a second route with the same key
 *    and a second `$default` stage), failing the update;
 *  - the bootstrap key's installation and rotation schedule: deleting the old rotation schedule
 *    after the new one is made turns rotation off;
 *  - the log groups of the functions outside the route stacks: deleting them loses their history.
 * Constructs are free to move; this table keeps what deploys where it was. A new resource needs no
 * entry: only one that already exists in deployments does. The stateful stack's data-holding
 * resources are kept the same way (statefulLogicalIds), each of them.
 */
import { type CfnResource, NestedStack, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { QueueName } from '#shared/topology.ts';
import { ServiceFunction } from './constructs/service-function.ts';

export const keptLogicalIds = {
  api: 'ApiF70053CD',
  defaultRoute: 'ApiDefaultRoute1D83B0D8',
  defaultIntegration: 'ApiDefaultRouteNotFoundIntegration1FE24358',
  stage: 'DefaultStageEE28A986',
  accessLogs: 'ApiAccessLogsE9DF007D',
  bootstrapKeyInstallation: 'BootstrapKey',
  bootstrapKeyRotationSchedule: 'BootstrapKeyRotationSchedule',
  /** The nested stack of each area's routes, by its construct id. */
  routeStacks: {
    StatusRoutes: 'StatusRoutesNestedStackStatusRoutesNestedStackResource08CD011B',
    ReferenceRoutes: 'ReferenceRoutesNestedStackReferenceRoutesNestedStackResource0604F042',
    ConsoleRoutes: 'ConsoleRoutesNestedStackConsoleRoutesNestedStackResource9FB1C3DE',
    TenantsRoutes: 'TenantsRoutesNestedStackTenantsRoutesNestedStackResource5C3B0D9F',
    UsersRoutes: 'UsersRoutesNestedStackUsersRoutesNestedStackResource9DC00B27',
    ConnectionsRoutes: 'ConnectionsRoutesNestedStackConnectionsRoutesNestedStackResource084A62C5',
    MonitoringRoutes: 'MonitoringRoutesNestedStackMonitoringRoutesNestedStackResourceEF274A69',
    IngestRoutes: 'IngestRoutesNestedStackIngestRoutesNestedStackResourceFD9B80B3',
    DatasetsRoutes: 'DatasetsRoutesNestedStackDatasetsRoutesNestedStackResourceB6848753',
    PipelinesRoutes: 'PipelinesRoutesNestedStackPipelinesRoutesNestedStackResource2919B9A2',
    JobsRoutes: 'JobsRoutesNestedStackJobsRoutesNestedStackResourceEC17A995',
    WikiRoutes: 'WikiRoutesNestedStackWikiRoutesNestedStackResource5C31EB0C',
  } as Record<string, string>,
  /** The log group of each function outside the route stacks, by its declaration's name. */
  functionLogs: {
    $default: 'NotFoundLogs87655A85',
    'ingest-writer': 'ConsumeringestwriterLogsBF195519',
    'dead-letter-recorder': 'ConsumerdeadletterrecorderLogs45BBF448',
    'job-runner': 'ConsumerjobrunnerLogsF7C6D479',
    'dashboard-provisioner': 'ConsumerdashboardprovisionerLogsE54D4272',
    'table-commits': 'ScheduletablecommitsLogs8EB3130B',
    'job-lease-sweeper': 'SchedulejobleasesweeperLogsBD74E325',
    'table-maintenance': 'ScheduletablemaintenanceLogsBB6C2040',
    'pipeline-runs-on-new-data': 'SchedulepipelinerunsonnewdataLogs00446A56',
    'counter-upkeep': 'SchedulecounterupkeepLogsC7F56833',
    'bootstrap-key-installer': 'BootstrapKeyInstallerLogs6675BA47',
    'bootstrap-key-rotation': 'BootstrapKeyRotationLogs56D7C14E',
  } as Record<string, string>,
};

/**
 * The stateful stack's resources that hold data, by what they are: a changed logical id would make
 * CloudFormation create an empty one and orphan the old (every one is retained), so the deployment
 * would lose its table, its queued envelopes, its buckets, the key that opens them or its secrets.
 */
export const statefulLogicalIds = {
  table: 'TableCD117FA1',
  queues: {
    ingest: 'Queueingest1876D252',
    ingestDeadLetter: 'Queueingestdlq7998330D',
    commits: 'QueuecommitsB3F83CA2',
    commitsDeadLetter: 'QueuecommitsdlqEC0072F8',
    dashboard: 'Queuedashboard92B9E20F',
    dashboardDeadLetter: 'Queuedashboarddlq7D448739',
    jobs: 'Queuejobs1E61891D',
    jobsDeadLetter: 'QueuejobsdlqCF05E1C6',
    upkeep: 'Queueupkeep83AC6D02',
    upkeepDeadLetter: 'Queueupkeepdlq5011635C',
  } satisfies Record<QueueName, string>,
  platformBucketKey: 'PlatformBucketKeyFEA50ABE',
  accessLogs: 'AccessLogs8B620ECA',
  platformBucket: 'PlatformBucket45416B39',
  bootstrapKey: 'BootstrapApiKeyBFEE3333',
  secretsKey: 'SecretsKey317DCF94',
  cursorKey: 'CursorKey255E8F8A',
};

export interface StatefulResources {
  table: IConstruct;
  queues: Record<QueueName, IConstruct>;
  platformBucketKey: IConstruct;
  accessLogs: IConstruct;
  platformBucket: IConstruct;
  bootstrapKey: IConstruct;
  secretsKey: IConstruct;
  cursorKey: IConstruct;
}

/** Gives the stateful stack's resources the logical ids deployments already have. */
export function keepStatefulLogicalIds(resources: StatefulResources): void {
  const { queues, ...single } = resources;
  for (const [name, construct] of Object.entries(single) as [Exclude<keyof StatefulResources, 'queues'>, IConstruct][])
    keep(construct, statefulLogicalIds[name]);
  for (const [name, queue] of Object.entries(queues) as [QueueName, IConstruct][])
    keep(queue, statefulLogicalIds.queues[name]);
}

function keep(construct: IConstruct, logicalId: string): void {
  (construct.node.defaultChild as CfnResource).overrideLogicalId(logicalId);
}

export interface KeptResources {
  httpApi: IConstruct;
  stage: IConstruct;
  accessLogs: IConstruct;
  bootstrapKeyInstallation: IConstruct;
  bootstrapKeyRotationSchedule: CfnResource;
}

/** Gives the stateless stack's long-lived resources the logical ids deployments already have. */
export function keepDeployedLogicalIds(stack: Stack, resources: KeptResources): void {
  keep(resources.httpApi, keptLogicalIds.api);
  const defaultRoute = resources.httpApi.node.findChild('DefaultRoute');
  keep(defaultRoute, keptLogicalIds.defaultRoute);
  keep(defaultRoute.node.findChild('NotFoundIntegration'), keptLogicalIds.defaultIntegration);
  keep(resources.stage, keptLogicalIds.stage);
  keep(resources.accessLogs, keptLogicalIds.accessLogs);
  keep(resources.bootstrapKeyInstallation, keptLogicalIds.bootstrapKeyInstallation);
  resources.bootstrapKeyRotationSchedule.overrideLogicalId(keptLogicalIds.bootstrapKeyRotationSchedule);
  for (const child of stack.node.findAll()) {
    if (child instanceof NestedStack && Stack.of(child.node.scope as IConstruct) === stack) {
      const id = keptLogicalIds.routeStacks[child.node.id];
      if (id) child.nestedStackResource?.overrideLogicalId(id);
    }
    if (child instanceof ServiceFunction && Stack.of(child) === stack) {
      const id = keptLogicalIds.functionLogs[child.declaration.name];
      if (id && child.logGroup) keep(child.logGroup, id);
    }
  }
}
