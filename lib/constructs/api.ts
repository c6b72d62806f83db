import { NestedStack, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { type CfnStage, HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { originSecretEnv } from '#shared/http/edge-origin.ts';
import { notFoundFunction, type RouteKey, routeKeys, routeSpec } from '../functions.ts';
import { acknowledgeControl, acknowledgeNagRule } from '../policy-checks.ts';
import { ApiRoutes } from './api-routes.ts';
import { ApiEdge } from './edge.ts';
import { type FunctionContext, logRetention, ServiceFunction } from './service-function.ts';

/** API Gateway's throttle for a route: steady requests per second and burst. */
export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

export interface ApiProps {
  context: FunctionContext;
  /** The web ACL (EdgeFirewallStack) of a CloudFront distribution to put in front of the API; none: no edge. */
  edgeWebAclArn?: string;
  /** The origin secret's version CloudFront sends (none: its current one); see ApiEdge. */
  edgeOriginSecretVersion?: string;
  /** Every route's throttle, each route with a bucket of its own. */
  throttle: Throttle;
  /** The throttle of the routes that declare `throttle: 'ingest'` (shared/http/route-spec.ts). */
  ingestThrottle: Throttle;
}

/**
 * One JSON line per request, as API Gateway saw it: who, which route, the answer and how long it took,
 * and what the integration did. `integrationStatus` is Lambda's own answer to the invocation: "200"
 * whenever a function ran, so a line without it is a request API Gateway or Lambda refused before any
 * function could record it (a throttle's 429, a body over the limits' 413, a timeout's 503/504): the
 * EdgeRefusals metric counts exactly those lines. No query string (cursors) and no header is logged,
 * nor the time (CloudWatch Logs stamps every line) or the response's length: a line is paid per byte
 * on every webhook.
 */
export const accessLogFields = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
};

/**
 * The HTTP API: one function and route per entry of the route table (grouped in one nested stack
 * per area, which keeps every template far below CloudFormation's resource limit), the not-found
 * function behind every other request, and the stage with its throttles and access log.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;
  readonly notFound: ServiceFunction;
  readonly functions = new Map<RouteKey, ServiceFunction>();
  /** CloudFront and AWS WAF in front of the API, when the deployment asks for them. */
  readonly edge?: ApiEdge;
  /** The address webhook senders and operators are given: the edge's, or else the API's own. */
  readonly publicUrl: string;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    this.notFound = new ServiceFunction(this, 'NotFound', notFoundFunction, props.context);
    this.httpApi = new HttpApi(this, 'HttpApi', {
      description: 'Tributary management and ingest API',
      defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', this.notFound),
      createDefaultStage: false,
    });
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: logRetention,
      encryptionKey: props.context.logsKey,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    const routeSettings: Record<string, Record<string, number>> = {};
    for (const [area, keys] of routesByArea()) {
      const nested = new NestedStack(this, `${area.replace(/\W/g, '')}Routes`, {
        description: `Tributary ${area} routes`,
      });
      const built = new ApiRoutes(nested, 'Routes', { api: this.httpApi, routes: keys, context: props.context });
      for (const [key, fn] of built.functions) this.functions.set(key, fn);
      for (const key of keys.filter((candidate) => routeSpec(candidate).throttle === 'ingest')) {
        routeSettings[key] = {
          ThrottlingRateLimit: props.ingestThrottle.rateLimit,
          ThrottlingBurstLimit: props.ingestThrottle.burstLimit,
        };
        // The stage's settings for a route name the route, which must exist first.
        this.stage.node.addDependency(nested);
      }
    }
    if (Object.keys(routeSettings).length > 0) (this.stage.node.defaultChild as CfnStage).routeSettings = routeSettings;
    this.publicUrl = this.httpApi.apiEndpoint;
    if (props.edgeWebAclArn) {
      this.edge = new ApiEdge(this, 'Edge', {
        api: this.httpApi,
        webAclArn: props.edgeWebAclArn,
        originSecretVersion: props.edgeOriginSecretVersion,
      });
      this.publicUrl = `https://${this.edge.distribution.distributionDomainName}`;
      for (const fn of [this.notFound, ...this.functions.values()]) {
        // Every function refuses a request that did not come through the edge (shared/http/edge-origin.ts).
        fn.addEnvironment(originSecretEnv, this.edge.originSecret.secretArn);
        this.edge.originSecret.grantRead(fn);
      }
      // Ingest URLs and the API reference name the edge, not the API's own address.
      for (const fn of this.functions.values()) fn.addEnvironment('PUBLIC_BASE_URL', this.publicUrl);
    }
    this.acknowledgeAuthorisationInFunctions();
  }

  /** The function of a route of the route table. */
  routeFunction(key: RouteKey): ServiceFunction {
    const fn = this.functions.get(key);
    if (!fn) throw new Error(`No function for ${key}`);
    return fn;
  }

  private acknowledgeAuthorisationInFunctions(): void {
    const reason =
      'Every route authorises in its own function, before anything else: an API key checked against its hash in the table and the route’s permission (shared/http/api-handler.ts), or the source’s bearer token or signature over the body on the ingest route (which an authorizer could not see). Public routes (live, health, openapi.json, docs, console) disclose nothing tenant-owned.';
    acknowledgeNagRule(this, 'AwsSolutions-APIG4', reason);
    acknowledgeControl(this, 'api_gw_v2_authorization_type_configured_check', reason);
    acknowledgeControl(
      this,
      'lambda_function_public_access_prohibited_check',
      "API Gateway may invoke each route's function only for this API's own ARN (SourceArn, built with Fn::Join, which the rule does not read).",
    );
  }
}

/** The route table's keys, grouped by area (each route's tag). */
function routesByArea(): Map<string, RouteKey[]> {
  const byArea = new Map<string, RouteKey[]>();
  for (const key of routeKeys) {
    const { tag } = routeSpec(key);
    byArea.set(tag, [...(byArea.get(tag) ?? []), key]);
  }
  return byArea;
}
