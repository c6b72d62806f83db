/**
 * Local mode runs what deploys: the functions of the cloud assembly, each from its asset folder with
 * the template's handler, environment and settings, wired as the template wires them. What local
 * mode reads from the assembly (local/cloud-assembly.ts) is checked here against the stack's own
 * reader of the same assembly (lib/deployed-functions.ts, which the bundle tests load every function
 * with, alone, as Lambda does) and against the declarations the stack is built from.
 */
import { describe, expect, it } from 'vitest';
import { deployedFunctions } from '#lib/deployed-functions.ts';
import { routes } from '#shared/routes.ts';
import { consumers, schedules } from '#shared/topology.ts';
import { ensureAssembly } from '../../local/assembly.ts';
import { readDeployment } from '../../local/cloud-assembly.ts';

const placement = {
  tableName: 'tributary',
  platformBucket: 'tributary-platform',
  queuePrefix: '',
  sqsEndpoint: 'http://127.0.0.1:9324',
};

describe('the cloud assembly, as local mode reads it', () => {
  it('gives every function the asset folder, handler, memory, timeout and reserved concurrency of its template', async () => {
    const { directory } = await ensureAssembly({ tenantBuckets: ['demo-bucket'] });
    const local = [...readDeployment(directory, placement).functions.values()];
    const deployed = deployedFunctions(directory);
    const settings = (fn: {
      handler: string;
      assetDirectory: string;
      memoryMb: number;
      timeoutSeconds: number;
      reservedConcurrency?: number | null;
    }) => ({
      handler: fn.handler,
      assetDirectory: fn.assetDirectory,
      memoryMb: fn.memoryMb,
      timeoutSeconds: fn.timeoutSeconds,
      reservedConcurrency: fn.reservedConcurrency ?? null,
    });
    const byLogicalId = (id: string) => id.split('/').pop() as string;
    expect(
      Object.fromEntries(local.filter((fn) => fn.declared).map((fn) => [byLogicalId(fn.id), settings(fn)])),
    ).toEqual(Object.fromEntries(deployed.filter((fn) => fn.declared).map((fn) => [fn.logicalId, settings(fn)])));
  });

  it("finds the platform bucket's expiry rules, which local mode applies itself (s3rver runs none)", async () => {
    const { directory } = await ensureAssembly({ tenantBuckets: ['demo-bucket'] });
    // The default settings: claims 15 days, staging 8, unreadable dead letters 30, query results 7.
    expect(readDeployment(directory, placement).platformBucketExpiry).toEqual([
      { prefix: 'claims/', days: 15 },
      { prefix: 'staging/', days: 8 },
      { prefix: 'dead-letters/unreadable/', days: 30 },
      { prefix: 'job-results/', days: 7 },
    ]);
  });

  it('finds every route, queue consumer and schedule the stack declares, with the settings it gave them', async () => {
    const { directory } = await ensureAssembly({ tenantBuckets: ['demo-bucket'] });
    const deployment = readDeployment(directory, placement);
    const declaredName = (functionId: string) => deployment.functions.get(functionId)?.declared?.name;

    // Each route reaches the function declared for it; unmatched requests the not-found function.
    expect(
      Object.fromEntries(deployment.routes.map((route) => [route.routeKey, declaredName(route.functionId)])),
    ).toEqual({ ...Object.fromEntries(Object.keys(routes).map((key) => [key, key])), $default: '$default' });

    // Each consumer polls its queue with its batch size and maximum concurrency.
    expect(
      Object.fromEntries(
        deployment.eventSources.map((source) => [
          declaredName(source.functionId),
          { queue: source.queue, batchSize: source.batchSize, maximumConcurrency: source.maximumConcurrency },
        ]),
      ),
    ).toEqual(
      Object.fromEntries(
        Object.entries(consumers).map(([name, consumer]) => [
          name,
          {
            queue: consumer.queue,
            batchSize: consumer.maxBatchingWindowSeconds === 0 ? Math.min(consumer.batchSize, 10) : consumer.batchSize,
            maximumConcurrency: consumer.maxConcurrency,
          },
        ]),
      ),
    );

    // Each schedule runs at its rate.
    expect(
      Object.fromEntries(
        deployment.schedules.map((schedule) => [declaredName(schedule.functionId), schedule.intervalSeconds]),
      ),
    ).toEqual(
      Object.fromEntries(Object.entries(schedules).map(([name, schedule]) => [name, schedule.everyMinutes * 60])),
    );
  });
});
