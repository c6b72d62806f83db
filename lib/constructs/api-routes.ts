import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import { type RouteSpec, routeKeyParts } from '#shared/routes.ts';
import { bindAccess, type SharedResources } from './access.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

export interface ApiRoutesProps {
  api: HttpApi;
  routes: [string, RouteSpec][];
  resources: SharedResources;
  /** Each route function's tracing (none: off). */
  tracing?: (routeKey: string) => ServiceFunctionProps['tracing'];
}

/** The longest a route's function may run: API Gateway's HTTP APIs end an integration at 30 s. */
export const maxRouteSeconds = 29;

/** One function and one API Gateway route per entry of the route table. */
export class ApiRoutes extends Construct {
  readonly functions: Record<string, ServiceFunction> = {};

  constructor(scope: Construct, id: string, props: ApiRoutesProps) {
    super(scope, id);
    for (const [key, spec] of props.routes) {
      const { method, path } = routeKeyParts(key);
      const id = key.replace(/[^A-Za-z0-9]+/g, '-');
      // API Gateway ends an integration at 30 s and answers 503 while the function works on.
      if ((spec.function?.timeoutSeconds ?? 0) > maxRouteSeconds)
        throw new Error(`${key}: a route's function runs at most ${maxRouteSeconds} s (API Gateway's limit is 30 s)`);
      const fn = new ServiceFunction(this, id, {
        entry: spec.entry,
        description: `${key}: ${spec.summary}`,
        memoryMb: spec.function?.memoryMb,
        timeoutSeconds: spec.function?.timeoutSeconds,
        assets: spec.function?.assets,
        tracing: props.tracing?.(key),
      });
      bindAccess(fn, { ...spec.access, recordsKeyUse: spec.auth === 'apiKey' }, props.resources);
      new HttpRoute(this, `${id}-Route`, {
        httpApi: props.api,
        routeKey: HttpRouteKey.with(path, HttpMethod[method]),
        integration: new HttpLambdaIntegration(`${id}-Integration`, fn),
      });
      this.functions[key] = fn;
    }
  }
}
