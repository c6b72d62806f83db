import { apiHandler } from '#shared/http/api-handler.ts';

export const handler = apiHandler('GET /live', async () => ({ status: 200 }));
