/**
 * Local mode runs what deploys: the cloud assembly's functions, each from its own asset folder with
 * the template's handler, environment and settings. Every function the local runtime invokes (a
 * route's, a queue consumer's, a schedule's) must load there as Lambda's init phase loads it, with
 * Node's modules and the AWS SDK beside it and nothing else; a bundle that reads a file it was not
 * shipped with (the table-commits schedule's Parquet WebAssembly, once) fails here.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { schedules as declaredSchedules } from '#shared/topology.ts';
import { ensureAssembly } from '../../local/assembly.ts';
import { readDeployment } from '../../local/cloud-assembly.ts';
import { installFunctionScopes, loadHandler } from '../../local/lambda-sandbox.ts';

const placement = {
  tableName: 'tributary',
  platformBucket: 'tributary-platform',
  queuePrefix: '',
  sqsEndpoint: 'http://127.0.0.1:9324',
};

describe('the cloud assembly, as local mode runs it', () => {
  it('loads every function the runtime invokes from its own asset folder, with the template’s handler and environment', async () => {
    const { directory } = await ensureAssembly({ tenantBuckets: ['demo-bucket'] });
    const deployment = readDeployment(directory, placement);
    const invoked = new Set([
      ...deployment.routes.map((route) => route.functionId),
      ...deployment.eventSources.map((source) => source.functionId),
      ...deployment.schedules.map((schedule) => schedule.functionId),
    ]);
    installFunctionScopes();
    const failures: string[] = [];
    for (const id of invoked) {
      const fn = deployment.functions.get(id);
      if (!fn) throw new Error(`${id} is invoked but not a function of the assembly`);
      try {
        await loadHandler(fn.assetDirectory, fn.handler, {
          env: { ...fn.environment, AWS_REGION: 'us-east-1', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
        });
      } catch (error) {
        failures.push(`${fn.description.split(':')[0]}: ${(error as Error).message.split('\n')[0]}`);
      }
    }
    // Every route of the route table (and the $default route), every consumer and schedule of the topology.
    expect({
      failures,
      routes: deployment.routes.length,
      eventSources: deployment.eventSources.map((source) => source.queue).sort(),
      schedules: deployment.schedules.length,
    }).toEqual({
      failures: [],
      routes: Object.keys(routes).length + 1,
      eventSources: ['dashboard', 'ingest', 'ingestDeadLetter', 'jobs'],
      schedules: Object.keys(declaredSchedules).length,
    });
  });
});
