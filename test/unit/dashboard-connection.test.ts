/**
 * The dashboard connection use cases, in process through in-memory ports (test/support/memory.ts). The running
 * service checks the wiring of the same routes.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DashboardToolFailure } from '#shared/domain/tenants/dashboard.ts';
import { provisionDashboard } from '#shared/domain/tenants/provision-dashboard.ts';
import { retryDashboardConnection, rotateDashboardCredential } from '#shared/domain/tenants/use-cases.ts';
import { platformAdmin } from '../support/memory.ts';
import { now, withDataSet } from '../support/use-case-setups.ts';

describe.concurrent('the dashboard connection', () => {
  it('gets a read-only credential on retry, queues its provisioning, and a rotation retires the old credential', async () => {
    const { store, tenantId } = await withDataSet();
    expect(await retryDashboardConnection(store, platformAdmin, tenantId, now)).toEqual({
      status: 'Pending',
      last_error: null,
      rotated_at: null,
    });
    const first = store.state.dashboards.get(tenantId)?.credential;
    expect(store.state.apiKeys.get(first?.api_key_id as string)).toMatchObject({
      tenant_id: tenantId,
      role: 'TenantViewer',
      hash: first?.hash,
    });
    expect(store.state.provisioningRequests).toEqual([tenantId]);
    await rotateDashboardCredential(store, platformAdmin, tenantId, now);
    const second = store.state.dashboards.get(tenantId)?.credential;
    expect(second?.hash).not.toBe(first?.hash);
    expect(store.state.apiKeys.has(first?.api_key_id as string)).toBe(false);
    expect(store.state.apiKeys.has(second?.api_key_id as string)).toBe(true);
    expect(store.state.provisioningRequests).toEqual([tenantId, tenantId]);
  });

  it('takes two rotations (or retries) made at once one after the other: no key is left valid and unnamed', async () => {
    const { store, tenantId } = await withDataSet();
    const dashboardKeys = () =>
      [...store.state.apiKeys.values()].filter((key) => key.user_id === `dashboard:${tenantId}`).map((key) => key.hash);
    // Two retries: the second finds the first's credential and issues none.
    await Promise.all([
      retryDashboardConnection(store, platformAdmin, tenantId, now),
      retryDashboardConnection(store, platformAdmin, tenantId, now),
    ]);
    const first = store.state.dashboards.get(tenantId)?.credential?.hash;
    expect(dashboardKeys()).toEqual([first]);
    // Two rotations: each retires what it found, the second the first's new key.
    await Promise.all([
      rotateDashboardCredential(store, platformAdmin, tenantId, now),
      rotateDashboardCredential(store, platformAdmin, tenantId, now),
    ]);
    const last = store.state.dashboards.get(tenantId)?.credential?.hash;
    expect(last).not.toBe(first);
    expect(dashboardKeys()).toEqual([last]);
  });

  it('leaves a rotation made during a provisioning run to its own run: the new credential is the one the tool ends with', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    const delivered: string[] = [];
    const tool = (during?: () => Promise<void>) => ({
      deliverCredential: async (input: { api_key: string }) => {
        delivered.push(createHash('sha256').update(input.api_key).digest('hex'));
        await during?.();
      },
    });
    // The first run hands over the first credential while a rotation replaces it.
    await provisionDashboard(
      { ...store, dashboardTool: tool(() => rotateDashboardCredential(store, platformAdmin, tenantId, now)) },
      tenantId,
      now,
    );
    const afterFirst = store.state.dashboards.get(tenantId)?.status;
    // The rotation's own run.
    await provisionDashboard({ ...store, dashboardTool: tool() }, tenantId, now);
    const current = store.state.dashboards.get(tenantId);
    expect({ afterFirst, deliveries: delivered.length, status: current?.status }).toEqual({
      afterFirst: 'Pending',
      deliveries: 2,
      status: 'Active',
    });
    expect(delivered[1]).toBe(current?.credential?.hash);
    expect(delivered[0]).not.toBe(current?.credential?.hash);
  });

  it('rotates while the tenant is suspended: the leaked key is revoked, as any key’s revocation is', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    const leaked = store.state.dashboards.get(tenantId)?.credential?.api_key_id as string;
    const tenant = store.state.tenants.get(tenantId);
    if (!tenant) throw new Error('no tenant');
    store.state.tenants.set(tenantId, { ...tenant, status: 'Suspended' });
    await rotateDashboardCredential(store, platformAdmin, tenantId, now);
    expect(store.state.apiKeys.has(leaked)).toBe(false);
    expect(store.state.dashboards.get(tenantId)?.credential?.api_key_id).not.toBe(leaked);
  });

  it('hands the current credential over again when an older run’s delivery reached the tool after the newer run’s', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    // The tool keeps the last credential it received.
    let toolHolds = '';
    const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');
    let finishFirst: () => void = () => undefined;
    const slow = {
      deliverCredential: async (input: { api_key: string }) => {
        await new Promise<void>((resolve) => {
          finishFirst = resolve;
        });
        toolHolds = hashOf(input.api_key);
      },
    };
    const quick = {
      deliverCredential: async (input: { api_key: string }) => {
        toolHolds = hashOf(input.api_key);
      },
    };
    // Run 1 starts delivering the first credential; a rotation and its run 2 complete meanwhile.
    const first = provisionDashboard({ ...store, dashboardTool: slow }, tenantId, now);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await rotateDashboardCredential(store, platformAdmin, tenantId, now);
    await provisionDashboard({ ...store, dashboardTool: quick }, tenantId, now);
    finishFirst();
    await first;
    const current = store.state.dashboards.get(tenantId)?.credential?.hash;
    expect(toolHolds).not.toBe(current);
    // Run 1 asked for a redelivery; it runs whatever the status.
    expect(store.state.provisioningRequests.at(-1)).toBe(`${tenantId} redeliver`);
    await provisionDashboard({ ...store, dashboardTool: quick }, tenantId, now, true);
    expect({ toolHolds, status: store.state.dashboards.get(tenantId)?.status }).toEqual({
      toolHolds: current,
      status: 'Active',
    });
  });

  it('asks for a redelivery too when its delivery timed out after the credential was replaced (it may still land)', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    await provisionDashboard(
      {
        ...store,
        dashboardTool: {
          deliverCredential: async () => {
            await rotateDashboardCredential(store, platformAdmin, tenantId, now);
            throw new DashboardToolFailure('The dashboard tool did not answer within 10 s');
          },
        },
      },
      tenantId,
      now,
    );
    expect(store.state.provisioningRequests.at(-1)).toBe(`${tenantId} redeliver`);
    // The rotation's own state stands: Pending, for its run.
    expect(store.state.dashboards.get(tenantId)?.status).toBe('Pending');
  });

  it('fails with a reason naming DASHBOARD_URL when no dashboard tool is configured', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    await provisionDashboard({ ...store, dashboardTool: null }, tenantId, now);
    expect(store.state.dashboards.get(tenantId)).toMatchObject({
      status: 'Failed',
      last_error: 'No dashboard tool is configured: the platform must set DASHBOARD_URL',
    });
  });

  it('hands the tool the credential whose hash it keeps, then is Active; a refusing tool makes it Failed', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    const delivered: { tenant_id: string; tenant_slug: string; api_key: string }[] = [];
    await provisionDashboard(
      { ...store, dashboardTool: { deliverCredential: async (input) => void delivered.push(input) } },
      tenantId,
      now,
    );
    expect(delivered).toEqual([
      { tenant_id: tenantId, tenant_slug: 'acme', tenant_name: 'Acme', api_key: expect.stringMatching(/^trb_key_/) },
    ]);
    expect(
      createHash('sha256')
        .update(delivered[0]?.api_key as string)
        .digest('hex'),
    ).toBe(store.state.dashboards.get(tenantId)?.credential?.hash);
    expect(store.state.dashboards.get(tenantId)?.status).toBe('Active');

    await rotateDashboardCredential(store, platformAdmin, tenantId, now);
    await provisionDashboard(
      {
        ...store,
        dashboardTool: {
          deliverCredential: async () => {
            throw new DashboardToolFailure('The dashboard tool answered HTTP 502');
          },
        },
      },
      tenantId,
      now,
    );
    expect(store.state.dashboards.get(tenantId)).toMatchObject({
      status: 'Failed',
      last_error: 'The dashboard tool answered HTTP 502',
    });
  });

  it('shows a fixed INTERNAL reason, never the words of a failure of its own, and throws it to be logged', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    const internal = new Error(
      'ProvisionedThroughputExceededException: Rate of requests exceeds the allowed throughput',
    );
    await expect(
      provisionDashboard(
        {
          ...store,
          dashboardTool: {
            deliverCredential: async () => {
              throw internal;
            },
          },
        },
        tenantId,
        now,
      ),
    ).rejects.toBe(internal);
    expect(store.state.dashboards.get(tenantId)).toMatchObject({
      status: 'Failed',
      last_error: 'INTERNAL: the credential could not be handed to the dashboard tool; retry',
    });
  });

  it('leaves the connection Pending, to be provisioned again, when its Active status cannot be stored', async () => {
    const { store, tenantId } = await withDataSet();
    await retryDashboardConnection(store, platformAdmin, tenantId, now);
    const stored: (string | null)[] = [];
    const failing = {
      ...store,
      setDashboardOutcome: async (...args: Parameters<typeof store.setDashboardOutcome>) => {
        stored.push(args[3]);
        if (args[2] === 'Active')
          throw new Error('ThrottlingException: Rate of requests exceeds the allowed throughput');
        return store.setDashboardOutcome(...args);
      },
    };
    const delivered: string[] = [];
    await expect(
      provisionDashboard(
        { ...failing, dashboardTool: { deliverCredential: async (input) => void delivered.push(input.tenant_id) } },
        tenantId,
        now,
      ),
    ).rejects.toThrow('ThrottlingException');
    expect(stored).toEqual([null]);
    expect(store.state.dashboards.get(tenantId)).toMatchObject({ status: 'Pending', last_error: null });
    await provisionDashboard(
      { ...store, dashboardTool: { deliverCredential: async (input) => void delivered.push(input.tenant_id) } },
      tenantId,
      now,
    );
    expect(delivered).toEqual([tenantId, tenantId]);
    expect(store.state.dashboards.get(tenantId)?.status).toBe('Active');
  });
});
