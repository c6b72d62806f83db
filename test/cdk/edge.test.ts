/**
 * What a deployment does not take on trust: the API behind CloudFront and AWS WAF when the operator
 * asks for it (off by default), a dashboard tool reached over https only, and a CloudWatch dashboard
 * whose name two copies of the stack cannot share.
 */
import { App, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tributary } from '#lib/app.ts';
import { policyChecksContext } from '#lib/synth-context.ts';
import { synthesizedDefaultApp } from './app.ts';

const app = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const env = { account: '123456789012', region: 'eu-west-1' };

describe('the edge setting', () => {
  let firewall: Template;
  let stateless: Template;
  let routeFunctions: Template[];
  beforeAll(() => {
    const built = tributary(app(), { env, edge: { rateLimitPerMinute: 1200 } });
    firewall = Template.fromStack(built.firewall as NonNullable<typeof built.firewall>);
    stateless = Template.fromStack(built.stateless);
    routeFunctions = built.stateless.node
      .findAll()
      .filter((child): child is NestedStack => child instanceof NestedStack)
      .map((nested) => Template.fromStack(nested));
  });

  it('puts a web ACL for CloudFront in us-east-1 with a rate-based rule per client address', () => {
    const acls = Object.values(firewall.findResources('AWS::WAFv2::WebACL'));
    expect(acls).toHaveLength(1);
    const acl = acls[0]?.Properties;
    expect(acl.Scope).toBe('CLOUDFRONT');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    expect(acl.Rules[0]).toMatchObject({
      Name: 'RatePerClientAddress',
      Action: { Block: {} },
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 1200, EvaluationWindowSec: 60 } },
    });
  });

  it('applies AWS’s managed rule groups, exploit patterns and the common rule set to every route but ingest', () => {
    const rules = Object.values(firewall.findResources('AWS::WAFv2::WebACL'))[0]?.Properties.Rules as {
      Statement: {
        ManagedRuleGroupStatement?: {
          VendorName: string;
          Name: string;
          ScopeDownStatement?: unknown;
          RuleActionOverrides?: { Name: string; ActionToUse: unknown }[];
        };
      };
    }[];
    const groups = rules.flatMap((rule) => rule.Statement.ManagedRuleGroupStatement ?? []);
    expect(groups.map((group) => `${group.VendorName}/${group.Name}`)).toEqual([
      'AWS/AWSManagedRulesAmazonIpReputationList',
      'AWS/AWSManagedRulesKnownBadInputsRuleSet',
      'AWS/AWSManagedRulesCommonRuleSet',
    ]);
    const notIngest = {
      NotStatement: {
        Statement: {
          ByteMatchStatement: {
            FieldToMatch: { UriPath: {} },
            PositionalConstraint: 'STARTS_WITH',
            SearchString: '/api/ingest/',
            TextTransformations: [{ Priority: 0, Type: 'NONE' }],
          },
        },
      },
    };
    expect(groups.map((group) => group.ScopeDownStatement ?? null)).toEqual([null, notIngest, notIngest]);
    // The size rules block below what the API takes (8 KB bodies against 1 MiB, 2 KB query strings against 4 KB
    // cursors), and the body rules a Markdown wiki page trips: counted, not blocked; the rest of the set blocks.
    expect(groups.map((group) => group.RuleActionOverrides ?? [])).toEqual([
      [],
      [],
      [
        'SizeRestrictions_BODY',
        'SizeRestrictions_QUERYSTRING',
        'SizeRestrictions_URIPATH',
        'CrossSiteScripting_BODY',
        'GenericLFI_BODY',
        'GenericRFI_BODY',
        'EC2MetaDataSSRF_BODY',
        'EC2MetaDataSSRF_URIPATH',
        'RestrictedExtensions_URIPATH',
        'CrossSiteScripting_QUERYARGUMENTS',
        'GenericLFI_QUERYARGUMENTS',
        'GenericRFI_QUERYARGUMENTS',
        'EC2MetaDataSSRF_QUERYARGUMENTS',
        'RestrictedExtensions_QUERYARGUMENTS',
      ].map((name) => ({ Name: name, ActionToUse: { Count: {} } })),
    ]);
  });

  it('puts CloudFront with that web ACL in front of the API: nothing cached, https to the API', () => {
    const distributions = Object.values(stateless.findResources('AWS::CloudFront::Distribution'));
    expect(distributions).toHaveLength(1);
    const config = distributions[0]?.Properties.DistributionConfig;
    expect(config.WebACLId).toBeDefined();
    expect(JSON.stringify(config.WebACLId)).not.toBe('""');
    expect(config.DefaultCacheBehavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      // CloudFront's managed CachingDisabled and AllViewerExceptHostHeader policies.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
      ViewerProtocolPolicy: 'https-only',
    });
    expect(config.Origins[0].CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
  });

  it('tells every route function the edge’s address, which ingest URLs name', () => {
    const addresses = routeFunctions.flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).map(
        (fn) => fn.Properties.Environment?.Variables?.PUBLIC_BASE_URL,
      ),
    );
    expect(addresses.length).toBeGreaterThan(70);
    expect(addresses.filter((address) => address === undefined)).toEqual([]);
  });

  it('sends the API the origin secret from CloudFront, and tells every function where it is, so none answers a request sent around it', () => {
    const config = Object.values(stateless.findResources('AWS::CloudFront::Distribution'))[0]?.Properties
      .DistributionConfig;
    const headers = config.Origins[0].OriginCustomHeaders as { HeaderName: string; HeaderValue: unknown }[];
    expect(headers.map((one) => one.HeaderName)).toEqual(['x-tributary-origin']);
    const secrets = Object.keys(stateless.findResources('AWS::SecretsManager::Secret'));
    expect(secrets).toHaveLength(1);
    // CloudFormation resolves the value at deploy time: the template holds a reference, never the value.
    expect(JSON.stringify(headers[0]?.HeaderValue)).toMatch(/\{\{resolve:secretsmanager:/);
    expect(JSON.stringify(headers[0]?.HeaderValue)).toContain(secrets[0]);
    const functions = [stateless, ...routeFunctions].flatMap((template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).filter(
        (fn) =>
          fn.Properties.Environment?.Variables?.PUBLIC_BASE_URL !== undefined ||
          fn.Metadata?.['tributary:function']?.name === '$default',
      ),
    );
    expect(functions.length).toBeGreaterThan(70);
    expect(
      functions.filter((fn) => fn.Properties.Environment?.Variables?.EDGE_ORIGIN_SECRET_ARN === undefined),
    ).toEqual([]);
  });

  it('names the origin secret version CloudFront sends when the deployment gives one (a rotation)', () => {
    // The policy checks are the first synth's (beforeAll); this one only reads the header.
    const unchecked = new App({ context: { 'aws:cdk:bundling-stacks': [], [policyChecksContext]: 'skip' } });
    const built = tributary(unchecked, { env, edge: { originSecretVersion: 'c0ffee00-1111-2222-3333-444455556666' } });
    const config = Object.values(Template.fromStack(built.stateless).findResources('AWS::CloudFront::Distribution'))[0]
      ?.Properties.DistributionConfig;
    expect(JSON.stringify(config.Origins[0].OriginCustomHeaders[0].HeaderValue)).toMatch(
      /SecretString:::c0ffee00-1111-2222-3333-444455556666\}\}/,
    );
  });

  it('is off by default, and refuses a rate limit WAF does not take or a deployment without a region', async () => {
    const { statelessTemplate } = await synthesizedDefaultApp();
    expect(Object.keys(statelessTemplate.findResources('AWS::CloudFront::Distribution'))).toEqual([]);
    expect(() => tributary(app(), { env, edge: { rateLimitPerMinute: 5 } })).toThrow(/edgeRateLimit/);
    expect(() => tributary(app(), { edge: {} })).toThrow(/region/);
  });
});

describe('the dashboard tool', () => {
  it.each([
    'http://dashboards.example.com/connections',
    'dashboards.example.com',
    'https://',
    'ftp://dashboards.example.com',
  ])('is refused at synth when its address is %s: the tenants’ keys it receives would travel in clear', (url) => {
    expect(() => tributary(app(), { dashboardUrl: url })).toThrow(/dashboardUrl must be an https:\/\/ URL/);
  });
});

describe('the CloudWatch dashboard', () => {
  it('takes its name from the stack and its region, so two copies of the stack do not collide', async () => {
    const { statelessTemplate } = await synthesizedDefaultApp();
    const dashboard = Object.values(statelessTemplate.findResources('AWS::CloudWatch::Dashboard'))[0];
    expect(dashboard?.Properties.DashboardName).toEqual({
      'Fn::Join': ['', ['TributaryStateless-', { Ref: 'AWS::Region' }, '-ingest']],
    });
  });
});
