/** Routes — The operator console, served by Tributary itself. Part of the route table (shared/routes.ts). */
import * as z from 'zod';
import { consoleAssetTypes } from '../http/console-page.ts';
import type { RouteSpec } from './spec.ts';

export const consoleRoutes = {
  'GET /console': {
    entry: 'functions/console/serve.ts',
    auth: 'public',
    summary:
      'The operator console: a page that signs in with an API key (kept in the browser tab’s sessionStorage); with `asset`, its script, stylesheet or icon',
    tag: 'Console',
    query: z.strictObject({
      asset: z.enum(Object.keys(consoleAssetTypes) as [keyof typeof consoleAssetTypes]).optional(),
    }),
    responses: {
      200: {
        description: 'The console page (or, with `asset`, its script, stylesheet or icon)',
        content: {
          'text/html; charset=utf-8': null,
          ...Object.fromEntries(Object.values(consoleAssetTypes).map((type) => [type, null])),
        },
      },
    },
    access: {},
    function: { assets: ['dist/console/console.js', 'dist/console/console.css', 'dist/console/icon.svg'] },
  },
} as const satisfies Record<string, RouteSpec>;
