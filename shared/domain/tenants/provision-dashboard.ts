import type { SecretBox } from '../secrets.ts';
import {
  type DashboardProvisioningQueue,
  type DashboardRepository,
  type DashboardTool,
  DashboardToolFailure,
  dashboardCredentialContext,
  internalDashboardFailure,
} from './dashboard.ts';
import type { TenantRepository } from './ports.ts';

/**
 * Provision a tenant's dashboard connection.
 * Input: the tenant id from the provisioning queue. Output: the connection Active or Failed.
 *  1. Only a Pending connection with a credential is provisioned (a stale message changes nothing).
 *  2. Without a configured dashboard tool the connection fails with a reason that says what to set.
 *  3. The tool receives the read-only credential; its answer decides Active or Failed (with the
 *     tool's failure in words of our own). Any other failure in handing it over is Failed with a
 *     fixed INTERNAL reason, and thrown, so that its cause is logged and never shown to the tenant.
 *  4. A failure to store the outcome is thrown: the message comes back, still Pending, and the tool
 *     receives the same credential again.
 *  5. The outcome is stored only while the connection still holds the credential handed over: a
 *     rotation meanwhile (a new credential, Pending, its own message queued) must not be marked
 *     Active by this run, or its own run would find it Active and never hand the new one over. And
 *     since this run's old credential may have reached the tool after the new run's, a run that
 *     finds its credential replaced asks for one more run that hands the current one over whatever
 *     the status (`redeliver`): it starts after this run's delivery, so the tool ends with it.
 */
export async function provisionDashboard(
  deps: Pick<TenantRepository, 'getTenant'> &
    DashboardRepository &
    DashboardProvisioningQueue & { secrets: SecretBox; dashboardTool: DashboardTool | null },
  tenantId: string,
  now = new Date(),
  redeliver = false,
): Promise<void> {
  const connection = await deps.getDashboardConnection(tenantId);
  const tenant = await deps.getTenant(tenantId);
  if (!connection?.credential || !tenant || (connection.status !== 'Pending' && !redeliver)) return;
  if (!deps.dashboardTool) {
    await deps.setDashboardStatus(
      tenantId,
      'Failed',
      'No dashboard tool is configured: the platform must set DASHBOARD_URL',
      now,
    );
    return;
  }
  const apiKey = await deps.secrets.open(connection.credential.sealed, dashboardCredentialContext(tenantId));
  try {
    await deps.dashboardTool.deliverCredential({
      tenant_id: tenant.tenant_id,
      tenant_slug: tenant.slug,
      tenant_name: tenant.name,
      api_key: apiKey,
    });
  } catch (error) {
    const toolFailed = error instanceof DashboardToolFailure;
    const stored = await deps.setDashboardOutcome(
      tenantId,
      connection.credential.hash,
      'Failed',
      toolFailed ? error.message.slice(0, 500) : internalDashboardFailure,
      now,
    );
    // A delivery that timed out may still reach the tool, after the new credential's.
    if (!stored) await deps.requestDashboardProvisioning(tenantId, true);
    if (toolFailed) return;
    throw error;
  }
  if (!(await deps.setDashboardOutcome(tenantId, connection.credential.hash, 'Active', null, now)))
    await deps.requestDashboardProvisioning(tenantId, true);
}
