/** What every route group shares: the route shape (shared/http/route-spec.ts) and access presets. */
import type { Access } from '../topology.ts';

export { type RouteSpec, routeKeyParts } from '../http/route-spec.ts';

/**
 * Access presets: most routes only read the table, or read and write it; `listing` also issues and
 * checks list cursors; `sealing` also uses the secrets key.
 */
export const table = { table: 'read' } as const satisfies Access;
export const listing = { table: 'read', cursorKey: true } as const satisfies Access;
export const tableWrite = { table: 'readWrite' } as const satisfies Access;
export const sealing = { table: 'readWrite', secretsKey: true } as const satisfies Access;

/** Answers requests that match no route, in the error shape (API Gateway's `$default` route). */
export const notFoundRoute = {
  entry: 'functions/status/not-found.ts',
  summary: 'Any request that matches no route: 404 in the error shape',
  access: {},
} as const;
