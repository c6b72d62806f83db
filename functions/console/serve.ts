import { apiHandler } from '#shared/api-handler.ts';
import {
  consoleAsset,
  consoleAssetTypes,
  consoleContentSecurityPolicy,
  consolePage,
} from '#shared/http/console-page.ts';
import { consoleRoutes } from '#shared/routes/console.ts';

const headers = {
  'content-security-policy': consoleContentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
  // What frame-ancestors 'none' says, for browsers that read only this; no window another page opened keeps a handle.
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  // HTTPS only for a year once seen over it (a browser ignores it over local mode's HTTP). The API's host alone: its
  // subdomains are the operator's.
  'strict-transport-security': 'max-age=31536000',
};

export const handler = apiHandler(consoleRoutes, 'GET /console', async ({ query }) => ({
  status: 200,
  headers,
  raw: query.asset
    ? { contentType: consoleAssetTypes[query.asset], content: consoleAsset(query.asset) }
    : { contentType: 'text/html; charset=utf-8', content: consolePage },
}));
