import { type DashboardTool, DashboardToolFailure } from '../domain/tenants/dashboard.ts';
import { readSecretString } from './key-material.ts';

/**
 * The bearer token the dashboard tool expects: DASHBOARD_TOKEN (local mode), or on AWS the secret
 * DASHBOARD_TOKEN_SECRET_ARN names, read at each provisioning so a new value is used from the next one.
 */
async function dashboardToken(): Promise<string | undefined> {
  if (process.env.DASHBOARD_TOKEN) return process.env.DASHBOARD_TOKEN;
  const arn = process.env.DASHBOARD_TOKEN_SECRET_ARN;
  if (!arn) return undefined;
  try {
    return (await readSecretString(arn)).trim() || undefined;
  } catch (error) {
    throw new DashboardToolFailure(`The dashboard token secret could not be read: ${(error as Error).name}`);
  }
}

/**
 * How long the dashboard tool has to answer a delivery. The provisioner's batch (shared/topology.ts)
 * is small enough for each of its deliveries to take this long within the function's timeout.
 */
export const dashboardCallTimeoutMs = 10_000;

/**
 * The dashboard tool at DASHBOARD_URL: it receives each tenant's read-only credential by a JSON POST
 * (with the dashboard token as a bearer token when one is set). Errors name the status, never the credential.
 */
export function dashboardToolFromEnv(): DashboardTool | null {
  const url = process.env.DASHBOARD_URL;
  if (!url) return null;
  return {
    async deliverCredential(input) {
      const token = await dashboardToken();
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(input),
          signal: AbortSignal.timeout(dashboardCallTimeoutMs),
        });
      } catch (error) {
        throw new DashboardToolFailure(`The dashboard tool could not be reached: ${(error as Error).name}`);
      }
      if (!response.ok) throw new DashboardToolFailure(`The dashboard tool answered HTTP ${response.status}`);
    },
  };
}
