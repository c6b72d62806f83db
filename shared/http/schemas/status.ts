import * as z from 'zod';

export const healthReport = z
  .object({
    status: z.enum(['Healthy', 'Unhealthy']),
    checks: z.array(z.object({ name: z.string(), healthy: z.boolean() })),
  })
  .meta({ id: 'HealthReport' });
