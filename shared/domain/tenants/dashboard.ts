/**
 * A tenant's connection to the external dashboard tool. The tool reads the tenant's data with a
 * read-only credential (a TenantViewer API key owned by the connection, not by a user); provisioning
 * hands that credential to the tool configured by DASHBOARD_URL.
 */
export const dashboardStatuses = ['NotConfigured', 'Pending', 'Active', 'Failed'] as const;
export type DashboardStatus = (typeof dashboardStatuses)[number];

export interface DashboardConnection {
  tenant_id: string;
  status: DashboardStatus;
  last_error: string | null;
  rotated_at: string | null;
  credential: { api_key_id: string; hash: string; sealed: string } | null;
  updated_at: string;
}

export function publicDashboardConnection(connection: DashboardConnection | null) {
  return {
    status: connection?.status ?? 'NotConfigured',
    last_error: connection?.last_error ?? null,
    rotated_at: connection?.rotated_at ?? null,
  };
}

export const dashboardCredentialContext = (tenantId: string) => `dashboard-credential:${tenantId}`;

export interface DashboardRepository {
  getDashboardConnection(tenantId: string): Promise<DashboardConnection | null>;
  /**
   * Stores the connection with a new credential and retires the previous credential, atomically, if the connection
   * still holds `previousHash` (none: no credential); false, writing nothing, when another call changed it first.
   */
  saveDashboardCredential(
    connection: DashboardConnection,
    credential: { api_key_id: string; hash: string; prefix: string; created_at: string },
    previousHash: string | null,
  ): Promise<boolean>;
  setDashboardStatus(tenantId: string, status: DashboardStatus, lastError: string | null, now: Date): Promise<void>;
  /**
   * A provisioning's outcome (Active or Failed), written only while the connection still holds the
   * credential it handed over (`credentialHash`); false, writing nothing, once a rotation replaced it.
   */
  setDashboardOutcome(
    tenantId: string,
    credentialHash: string,
    status: DashboardStatus,
    lastError: string | null,
    now: Date,
  ): Promise<boolean>;
}

export interface DashboardProvisioningQueue {
  /** `redeliver`: hand the credential over again even if the connection is not Pending (see provisionDashboard). */
  requestDashboardProvisioning(tenantId: string, redeliver?: boolean): Promise<void>;
}

/**
 * The dashboard tool did not take a credential: its message, in our own words (a status, or that it
 * could not be reached), is what the tenant sees as the connection's last_error.
 */
export class DashboardToolFailure extends Error {
  override name = 'DashboardToolFailure';
}

/** What the tenant sees when the credential could not be handed over for a reason of our own (the cause is logged). */
export const internalDashboardFailure = 'INTERNAL: the credential could not be handed to the dashboard tool; retry';

/** The external dashboard tool, when the platform has one configured. */
export interface DashboardTool {
  deliverCredential(input: {
    tenant_id: string;
    tenant_slug: string;
    tenant_name: string;
    api_key: string;
  }): Promise<void>;
}
