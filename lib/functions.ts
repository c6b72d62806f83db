/**
 * Every function the stateless stack deploys, as one list: a function per route and the not-found
 * route (shared/routes.ts), the queue consumers and schedules (shared/topology.ts), the
 * deploy-time bootstrap key installer and the bootstrap key's rotation function. The bundle tests and `npm run bench functions` read it; the
 * stack builds the same functions from the same declarations.
 */
import { notFoundRoute, type RouteSpec, routes } from '#shared/routes.ts';
import { type Access, bootstrapKeyInstaller, bootstrapKeyRotation, consumers, schedules } from '#shared/topology.ts';

export interface FunctionEntry {
  name: string;
  entry: string;
  kind: 'api' | 'consumer' | 'schedule' | 'deploy';
  /** Files the bundle reads from beside itself. */
  assets: string[];
  /** What the stack lets it touch. */
  access: Access;
  /** API-key routes also read the key store, whatever their own access says. */
  authenticated: boolean;
}

export function allFunctions(): FunctionEntry[] {
  return [
    ...(Object.entries(routes) as [string, RouteSpec][]).map(([key, spec]) => ({
      name: key,
      entry: spec.entry,
      kind: 'api' as const,
      assets: spec.function?.assets ?? [],
      access: spec.access,
      authenticated: spec.auth === 'apiKey',
    })),
    {
      name: '$default',
      entry: notFoundRoute.entry,
      kind: 'api' as const,
      assets: [],
      access: notFoundRoute.access,
      authenticated: false,
    },
    ...Object.entries(consumers).map(([name, spec]) => ({
      name,
      entry: spec.entry,
      kind: 'consumer' as const,
      assets: spec.function.assets ?? [],
      access: spec.access,
      authenticated: false,
    })),
    ...Object.entries(schedules).map(([name, spec]) => ({
      name,
      entry: spec.entry,
      kind: 'schedule' as const,
      assets: spec.function?.assets ?? [],
      access: spec.access,
      authenticated: false,
    })),
    {
      name: 'bootstrap-key-installer',
      entry: bootstrapKeyInstaller.entry,
      kind: 'deploy' as const,
      assets: bootstrapKeyInstaller.function.assets ?? [],
      access: bootstrapKeyInstaller.access,
      authenticated: false,
    },
    {
      name: 'bootstrap-key-rotation',
      entry: bootstrapKeyRotation.entry,
      kind: 'deploy' as const,
      assets: bootstrapKeyRotation.function.assets ?? [],
      access: bootstrapKeyRotation.access,
      authenticated: false,
    },
  ];
}
