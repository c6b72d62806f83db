import { type HttpApi, HttpMethod, HttpRoute, HttpRouteKey } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Construct } from 'constructs';
import { routeKeyParts } from '#shared/routes.ts';
import { type RouteKey, routeFunction } from '../functions.ts';
import { type FunctionContext, ServiceFunction } from './service-function.ts';

export interface ApiRoutesProps {
  api: HttpApi;
  routes: RouteKey[];
  context: FunctionContext;
}

/** The longest a route's function may run: API Gateway's HTTP APIs end an integration at 30 s. */
export const maxRouteSeconds = 29;

/** One function and one API Gateway route per entry of the route table. */
export class ApiRoutes extends Construct {
  readonly functions = new Map<RouteKey, ServiceFunction>();

  constructor(scope: Construct, id: string, props: ApiRoutesProps) {
    super(scope, id);
    for (const key of props.routes) {
      const declaration = routeFunction(key);
      // API Gateway ends an integration at 30 s and answers 503 while the function works on.
      if ((declaration.settings.timeoutSeconds ?? 0) > maxRouteSeconds)
        throw new Error(`${key}: a route's function runs at most ${maxRouteSeconds} s (API Gateway's limit is 30 s)`);
      const { method, path } = routeKeyParts(key);
      const id = key.replace(/[^A-Za-z0-9]+/g, '-');
      const fn = new ServiceFunction(this, id, declaration, props.context);
      new HttpRoute(this, `${id}-Route`, {
        httpApi: props.api,
        routeKey: HttpRouteKey.with(path, HttpMethod[method]),
        integration: new HttpLambdaIntegration(`${id}-Integration`, fn),
      });
      this.functions.set(key, fn);
    }
  }
}
