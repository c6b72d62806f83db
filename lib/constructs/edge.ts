import { RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { originHeader } from '#shared/http/edge-origin.ts';
import { acknowledgeControl, acknowledgeNagRule } from '../policy-checks.ts';

/**
 * Requests one client address may make in a minute before the firewall blocks it (the edgeRateLimit
 * context value). A webhook sender sends from a few addresses, so the default is generous: it stops a
 * flood, and the per-source `rate_limit` of each connection stays the precise limit.
 */
export const defaultEdgeRateLimitPerMinute = 6000;

/** The common rule set's rules that count rather than block (see EdgeFirewallStack). */
export const countedCommonRules = [
  'SizeRestrictions_BODY',
  'SizeRestrictions_QUERYSTRING',
  'SizeRestrictions_URIPATH',
  'CrossSiteScripting_BODY',
  'GenericLFI_BODY',
  'GenericRFI_BODY',
  // A wiki page or path about instance metadata, wiki paths such as ops/nginx.conf or app.log.
  'EC2MetaDataSSRF_BODY',
  'EC2MetaDataSSRF_URIPATH',
  'RestrictedExtensions_URIPATH',
  // The events view's search (`contains=`) and the wiki's `prefix=` for "<script", "../", a URL, an
  // address or a file name.
  'CrossSiteScripting_QUERYARGUMENTS',
  'GenericLFI_QUERYARGUMENTS',
  'GenericRFI_QUERYARGUMENTS',
  'EC2MetaDataSSRF_QUERYARGUMENTS',
  'RestrictedExtensions_QUERYARGUMENTS',
] as const;

export interface EdgeFirewallProps extends StackProps {
  rateLimitPerMinute?: number;
}

/**
 * The AWS WAF web ACL in front of the API. One for CloudFront must live in us-east-1, so it is a stack
 * of its own there, whatever the region of the rest. Its rules, in order:
 *  1. a rate-based rule per client address;
 *  2. AWS's IP reputation list, and known bad inputs (exploit patterns such as Log4j lookups) for
 *     every route but ingest;
 *  3. AWS's common rule set, for every route but ingest: a webhook's body is the sender's data, which
 *     may well hold HTML, paths or a security tool's exploit samples, and blocking it would lose it.
 *     Its size rules only count: they block bodies over 8 KB, query strings over 2 KB and paths over
 *     1 KB, below what the API takes (1 MiB bodies, 256 KiB wiki pages, 4 KB cursors, wiki paths of
 *     1,000 UTF-8 bytes), which the API limits itself; and so do the rules a wiki page in Markdown,
 *     a wiki path or an events search trips (HTML, relative paths, links, file extensions).
 */
export class EdgeFirewallStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps = {}) {
    super(scope, id, props);
    const limit = props.rateLimitPerMinute ?? defaultEdgeRateLimitPerMinute;
    if (!(Number.isInteger(limit) && limit >= 10 && limit <= 2_000_000_000))
      throw new Error(
        `edgeRateLimit must be a whole number of requests per minute from 10 to 2000000000, got ${limit}`,
      );
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    const managed = (
      name: string,
      priority: number,
      scopeDownStatement?: CfnWebACL.StatementProperty,
      counted: readonly string[] = [],
    ) => ({
      name: `AWS-${name}`,
      priority,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name,
          ...(scopeDownStatement ? { scopeDownStatement } : {}),
          ...(counted.length > 0
            ? { ruleActionOverrides: counted.map((rule) => ({ name: rule, actionToUse: { count: {} } })) }
            : {}),
        },
      },
      visibilityConfig: visibility(name),
    });
    const notIngest: CfnWebACL.StatementProperty = {
      notStatement: {
        statement: {
          byteMatchStatement: {
            fieldToMatch: { uriPath: {} },
            positionalConstraint: 'STARTS_WITH',
            searchString: '/api/ingest/',
            textTransformations: [{ priority: 0, type: 'NONE' }],
          },
        },
      },
    };
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'Tributary API: a rate limit per client address and AWS managed rule groups',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('TributaryApi'),
      rules: [
        {
          name: 'RatePerClientAddress',
          priority: 0,
          action: { block: {} },
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit, evaluationWindowSec: 60 } },
          visibilityConfig: visibility('RatePerClientAddress'),
        },
        managed('AWSManagedRulesAmazonIpReputationList', 1),
        managed('AWSManagedRulesKnownBadInputsRuleSet', 2, notIngest),
        managed('AWSManagedRulesCommonRuleSet', 3, notIngest, countedCommonRules),
      ],
    });
  }
}

export interface ApiEdgeProps {
  api: HttpApi;
  webAclArn: string;
  /**
   * The version of the origin secret CloudFront sends (the edgeOriginSecretVersion context value);
   * none: its current one. Naming the version a rotation made is what makes CloudFormation give
   * CloudFront the new value (docs/deploying.md).
   */
  originSecretVersion?: string;
}

/**
 * CloudFront in front of the HTTP API, with the firewall's web ACL: nothing cached, every method,
 * every viewer header but Host forwarded (API Gateway answers to its own host name), with CloudFront's
 * own headers (CloudFront-Viewer-Address among them).
 *
 * API Gateway's execute-api address keeps answering, so CloudFront also sends `x-tributary-origin`
 * with the origin secret, and every function refuses a request without it (shared/http/edge-origin.ts):
 * a request sent around CloudFront never passes the firewall, nor reaches anything behind the API.
 */
export class ApiEdge extends Construct {
  readonly distribution: Distribution;
  /** The value CloudFront proves its requests with; the functions read it (EDGE_ORIGIN_SECRET_ARN). */
  readonly originSecret: Secret;

  constructor(scope: Construct, id: string, props: ApiEdgeProps) {
    super(scope, id);
    const region = Stack.of(this).region;
    this.originSecret = new Secret(this, 'OriginSecret', {
      description:
        'Tributary: the value CloudFront sends the API in x-tributary-origin; the functions refuse requests without it',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      // Replaced with the stack: CloudFront and the functions are replaced with it.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledgeNagRule(
      this.originSecret,
      'AwsSolutions-SMG4',
      'Rotated by the operator in two steps (put a new value, then deploy with edgeOriginSecretVersion): the functions accept the current and the previous value meanwhile, and CloudFront takes the new one only through a deployment, which a rotation function cannot make.',
    );
    const originValue = SecretValue.secretsManager(this.originSecret.secretArn, {
      ...(props.originSecretVersion ? { versionId: props.originSecretVersion } : {}),
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Tributary API behind AWS WAF',
      webAclId: props.webAclArn,
      defaultBehavior: {
        origin: new HttpOrigin(`${props.api.apiId}.execute-api.${region}.${Stack.of(this).urlSuffix}`, {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          // The value is in the distribution's configuration, which only the account can read.
          customHeaders: { [originHeader]: originValue.unsafeUnwrap() },
        }),
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
      },
    });
    const acknowledge = (rule: string, reason: string) => acknowledgeNagRule(this.distribution, rule, reason);
    acknowledge(
      'AwsSolutions-CFR1',
      'Webhook senders and operators may be anywhere; the web ACL limits each client address instead.',
    );
    acknowledge(
      'AwsSolutions-CFR3',
      'The API stage writes one access log line per request (ApiAccessLogs); WAF samples blocked requests.',
    );
    const ownCertificate =
      'The distribution answers on its cloudfront.net name, whose default certificate fixes the TLS policy; an operator with a domain of their own sets it there.';
    acknowledge('AwsSolutions-CFR4', ownCertificate);
    const controls = {
      cloudfront_custom_ssl_certificate_check: ownCertificate,
      cloudfront_sni_enabled_check: ownCertificate,
      cloudfront_security_policy_check: ownCertificate,
      cloudfront_access_logs_enabled_check:
        'The API stage writes one access log line per request that passes (ApiAccessLogs); WAF samples the requests it blocks.',
      cloudfront_default_root_object_configured_check:
        'An API, not a site: a request for / goes to the API, whose not-found function answers it.',
      cloudfront_origin_failover_enabled_check:
        "One API in one region: there is no second origin to fail over to (a second region's deployment would have its own tables and queues).",
    };
    for (const [rule, reason] of Object.entries(controls)) acknowledgeControl(this.distribution, rule, reason);
  }
}
