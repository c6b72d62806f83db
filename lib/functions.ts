/**
 * Every function the stateless stack deploys, each as one declaration: a function per route and the
 * not-found route (shared/routes.ts), the queue consumers and schedules (shared/topology.ts), the
 * deploy-time bootstrap key installer and the bootstrap key's rotation function. The stack builds
 * each function from its declaration (lib/constructs/service-function.ts), the bundles are built
 * from the same list (lib/bundling.ts), and the bundle tests and `npm run bench functions` read it.
 */
import { notFoundRoute, type RouteSpec, routes } from '#shared/routes.ts';
import {
  type Access,
  bootstrapKeyInstaller,
  bootstrapKeyRotation,
  type ConsumerName,
  consumers,
  type FunctionSettings,
  type ScheduleName,
  schedules,
} from '#shared/topology.ts';

export type RouteKey = keyof typeof routes;
export type FunctionKind = 'api' | 'consumer' | 'schedule' | 'deploy';

export interface FunctionDeclaration {
  /** The route key, consumer or schedule name, `$default` or the deploy hook's name. */
  readonly name: string;
  readonly kind: FunctionKind;
  /** Handler module relative to the repository root; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  /** What the stack lets it touch (API-key routes also note keys' last use). */
  readonly access: Access;
  readonly settings: FunctionSettings;
}

export function routeSpec(key: RouteKey): RouteSpec {
  return routes[key];
}

export function routeFunction(key: RouteKey): FunctionDeclaration {
  const spec = routeSpec(key);
  return {
    name: key,
    kind: 'api',
    entry: spec.entry,
    description: `${key}: ${spec.summary}`,
    access: { ...spec.access, recordsKeyUse: spec.auth === 'apiKey' },
    settings: spec.function ?? {},
  };
}

export const notFoundFunction: FunctionDeclaration = {
  name: '$default',
  kind: 'api',
  entry: notFoundRoute.entry,
  description: notFoundRoute.summary,
  access: notFoundRoute.access,
  settings: {},
};

export function consumerFunction(name: ConsumerName): FunctionDeclaration {
  const spec = consumers[name];
  return {
    name,
    kind: 'consumer',
    entry: spec.entry,
    description: spec.summary,
    access: spec.access,
    settings: spec.function,
  };
}

export function scheduleFunction(name: ScheduleName): FunctionDeclaration {
  const spec = schedules[name];
  return {
    name,
    kind: 'schedule',
    entry: spec.entry,
    description: spec.summary,
    access: spec.access,
    settings: spec.function ?? {},
  };
}

export const bootstrapKeyFunctions = {
  installer: {
    name: 'bootstrap-key-installer',
    kind: 'deploy',
    entry: bootstrapKeyInstaller.entry,
    description: bootstrapKeyInstaller.summary,
    access: bootstrapKeyInstaller.access,
    settings: bootstrapKeyInstaller.function,
  },
  rotation: {
    name: 'bootstrap-key-rotation',
    kind: 'deploy',
    entry: bootstrapKeyRotation.entry,
    description: bootstrapKeyRotation.summary,
    access: bootstrapKeyRotation.access,
    settings: bootstrapKeyRotation.function,
  },
} as const satisfies Record<string, FunctionDeclaration>;

export const routeKeys = Object.keys(routes) as RouteKey[];
export const consumerNames = Object.keys(consumers) as ConsumerName[];
export const scheduleNames = Object.keys(schedules) as ScheduleName[];

export function allFunctions(): FunctionDeclaration[] {
  return [
    ...routeKeys.map(routeFunction),
    notFoundFunction,
    ...consumerNames.map(consumerFunction),
    ...scheduleNames.map(scheduleFunction),
    bootstrapKeyFunctions.installer,
    bootstrapKeyFunctions.rotation,
  ];
}
