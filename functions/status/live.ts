import { apiHandler } from '#shared/http/api-handler.ts';
import { statusRoutes } from '#shared/routes/status.ts';

export const handler = apiHandler(statusRoutes, 'GET /live', async () => ({ status: 200 }));
