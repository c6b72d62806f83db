import type { DashboardTool } from '../domain/tenants/dashboard.ts';

/**
 * The dashboard tool at DASHBOARD_URL: it receives each tenant's read-only credential by a JSON POST
 * (with DASHBOARD_TOKEN as a bearer token when set). Errors name the status, never the credential.
 */
export function dashboardToolFromEnv(): DashboardTool | null {
  const url = process.env.DASHBOARD_URL;
  if (!url) return null;
  return {
    async deliverCredential(input) {
      const token = process.env.DASHBOARD_TOKEN;
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(input),
          signal: AbortSignal.timeout(10_000),
        });
      } catch (error) {
        throw new Error(`The dashboard tool could not be reached: ${(error as Error).name}`);
      }
      if (!response.ok) throw new Error(`The dashboard tool answered HTTP ${response.status}`);
    },
  };
}
