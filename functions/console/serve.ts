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
};

export const handler = apiHandler(consoleRoutes, 'GET /console', async ({ query }) => ({
  status: 200,
  headers,
  raw: query.asset
    ? { contentType: consoleAssetTypes[query.asset], content: consoleAsset(query.asset) }
    : { contentType: 'text/html; charset=utf-8', content: consolePage },
}));
