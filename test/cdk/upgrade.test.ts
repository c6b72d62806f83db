import { beforeAll, describe, expect, it } from 'vitest';
import { type SynthesizedApp, synthesizedDefaultApp } from './app.ts';

let synthesized: SynthesizedApp;
beforeAll(async () => {
  synthesized = await synthesizedDefaultApp();
});

/**
 * The logical ids deployed stacks have (read off the stateless template of the release before the
 * constructs were regrouped). CloudFormation replaces a resource whose id changes: for these, that
 * would give the API a new address, fail the update on duplicate routes and stages, turn the
 * bootstrap key's rotation off, or drop log history (lib/kept-ids.ts says which is which).
 */
const deployed: [string, string][] = [
  ['ApiF70053CD', 'AWS::ApiGatewayV2::Api'],
  ['ApiDefaultRoute1D83B0D8', 'AWS::ApiGatewayV2::Route'],
  ['ApiDefaultRouteNotFoundIntegration1FE24358', 'AWS::ApiGatewayV2::Integration'],
  ['DefaultStageEE28A986', 'AWS::ApiGatewayV2::Stage'],
  ['ApiAccessLogsE9DF007D', 'AWS::Logs::LogGroup'],
  ['BootstrapKey', 'AWS::CloudFormation::CustomResource'],
  ['BootstrapKeyRotationSchedule', 'AWS::SecretsManager::RotationSchedule'],
  ['StatusRoutesNestedStackStatusRoutesNestedStackResource08CD011B', 'AWS::CloudFormation::Stack'],
  ['ReferenceRoutesNestedStackReferenceRoutesNestedStackResource0604F042', 'AWS::CloudFormation::Stack'],
  ['ConsoleRoutesNestedStackConsoleRoutesNestedStackResource9FB1C3DE', 'AWS::CloudFormation::Stack'],
  ['TenantsRoutesNestedStackTenantsRoutesNestedStackResource5C3B0D9F', 'AWS::CloudFormation::Stack'],
  ['UsersRoutesNestedStackUsersRoutesNestedStackResource9DC00B27', 'AWS::CloudFormation::Stack'],
  ['ConnectionsRoutesNestedStackConnectionsRoutesNestedStackResource084A62C5', 'AWS::CloudFormation::Stack'],
  ['MonitoringRoutesNestedStackMonitoringRoutesNestedStackResourceEF274A69', 'AWS::CloudFormation::Stack'],
  ['IngestRoutesNestedStackIngestRoutesNestedStackResourceFD9B80B3', 'AWS::CloudFormation::Stack'],
  ['DatasetsRoutesNestedStackDatasetsRoutesNestedStackResourceB6848753', 'AWS::CloudFormation::Stack'],
  ['PipelinesRoutesNestedStackPipelinesRoutesNestedStackResource2919B9A2', 'AWS::CloudFormation::Stack'],
  ['JobsRoutesNestedStackJobsRoutesNestedStackResourceEC17A995', 'AWS::CloudFormation::Stack'],
  ['WikiRoutesNestedStackWikiRoutesNestedStackResource5C31EB0C', 'AWS::CloudFormation::Stack'],
  ['NotFoundLogs87655A85', 'AWS::Logs::LogGroup'],
  ['ConsumeringestwriterLogsBF195519', 'AWS::Logs::LogGroup'],
  ['ConsumerdeadletterrecorderLogs45BBF448', 'AWS::Logs::LogGroup'],
  ['ConsumerjobrunnerLogsF7C6D479', 'AWS::Logs::LogGroup'],
  ['ConsumerdashboardprovisionerLogsE54D4272', 'AWS::Logs::LogGroup'],
  ['SchedulejobleasesweeperLogsBD74E325', 'AWS::Logs::LogGroup'],
  ['ScheduletablemaintenanceLogsBB6C2040', 'AWS::Logs::LogGroup'],
  ['SchedulepipelinerunsonnewdataLogs00446A56', 'AWS::Logs::LogGroup'],
  ['SchedulecounterupkeepLogsC7F56833', 'AWS::Logs::LogGroup'],
  ['BootstrapKeyInstallerLogs6675BA47', 'AWS::Logs::LogGroup'],
  ['BootstrapKeyRotationLogs56D7C14E', 'AWS::Logs::LogGroup'],
];

/**
 * Every resource of the stateful stack that holds data, with the logical id deployments have
 * (lib/kept-ids.ts pins them). A changed id would make CloudFormation create an empty resource and
 * orphan the retained one: the deployment would lose its table, queued envelopes, buckets, the
 * platform bucket's key or its secrets. A new stateful resource is added here on purpose.
 */
const statefulDeployed: [string, string][] = [
  ['TableCD117FA1', 'AWS::DynamoDB::Table'],
  ['Queueingest1876D252', 'AWS::SQS::Queue'],
  ['Queueingestdlq7998330D', 'AWS::SQS::Queue'],
  ['QueuecommitsB3F83CA2', 'AWS::SQS::Queue'],
  ['QueuecommitsdlqEC0072F8', 'AWS::SQS::Queue'],
  ['Queuedashboard92B9E20F', 'AWS::SQS::Queue'],
  ['Queuedashboarddlq7D448739', 'AWS::SQS::Queue'],
  ['Queuejobs1E61891D', 'AWS::SQS::Queue'],
  ['QueuejobsdlqCF05E1C6', 'AWS::SQS::Queue'],
  ['Queueupkeep83AC6D02', 'AWS::SQS::Queue'],
  ['Queueupkeepdlq5011635C', 'AWS::SQS::Queue'],
  ['PlatformBucketKeyFEA50ABE', 'AWS::KMS::Key'],
  ['AccessLogs8B620ECA', 'AWS::S3::Bucket'],
  ['PlatformBucket45416B39', 'AWS::S3::Bucket'],
  ['BootstrapApiKeyBFEE3333', 'AWS::SecretsManager::Secret'],
  ['SecretsKey317DCF94', 'AWS::SecretsManager::Secret'],
  ['CursorKey255E8F8A', 'AWS::SecretsManager::Secret'],
];
const statefulTypes = new Set(statefulDeployed.map(([, type]) => type));

describe('an upgrade of a deployed stack', () => {
  it('replaces no table, queue, bucket, key or secret of the stateful stack: each keeps its logical id', () => {
    const resources = synthesized.statefulTemplate.toJSON().Resources as Record<string, { Type: string }>;
    const synthesizedStateful = Object.entries(resources)
      .filter(([, resource]) => statefulTypes.has(resource.Type))
      .map(([id, resource]) => [id, resource.Type])
      .sort();
    expect(synthesizedStateful).toEqual([...statefulDeployed].sort());
  });

  it('keeps the logical id of every resource whose replacement would break the deployment', () => {
    const resources = synthesized.statelessTemplate.toJSON().Resources as Record<string, { Type: string }>;
    const missing = deployed.filter(([id, type]) => resources[id]?.Type !== type);
    expect(missing).toEqual([]);
  });

  it('keeps the API its routes, its stage its access log, and each function outside the route stacks its log group', () => {
    const resources = synthesized.statelessTemplate.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    expect(resources.DefaultStageEE28A986?.Properties.ApiId).toEqual({ Ref: 'ApiF70053CD' });
    expect(resources.ApiDefaultRoute1D83B0D8?.Properties.ApiId).toEqual({ Ref: 'ApiF70053CD' });
    const accessLog = resources.DefaultStageEE28A986?.Properties.AccessLogSettings as { DestinationArn: unknown };
    expect(accessLog.DestinationArn).toEqual({ 'Fn::GetAtt': ['ApiAccessLogsE9DF007D', 'Arn'] });
    const logGroupsOfFunctions = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::Function')
      .map(
        (resource) => (resource.Properties.LoggingConfig as { LogGroup?: { Ref: string } } | undefined)?.LogGroup?.Ref,
      );
    expect(logGroupsOfFunctions).toEqual(
      expect.arrayContaining(['NotFoundLogs87655A85', 'ConsumeringestwriterLogsBF195519']),
    );
  });
});
