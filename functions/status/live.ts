import { apiHandler } from '#shared/api-handler.ts';
import { statusRoutes } from '#shared/routes/status.ts';

export const handler = apiHandler(statusRoutes, 'GET /live', async () => ({ status: 200 }));
