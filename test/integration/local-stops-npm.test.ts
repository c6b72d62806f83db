/**
 * `npm start` stopped as people stop it: Ctrl-C signals the group (test/integration/local-stops.test.ts),
 * `kill` or a supervisor signals npm's pid alone, `docker stop` sends SIGTERM to the container's PID 1,
 * which is npm; and npm killed outright leaves the service to notice and stop by itself. Each scenario
 * signals npm's own pid during a burst, then checks that npm and everything it ran are gone, that every
 * port is free, and, after `npm start` again on the same DATA_DIR, that every message id ever answered
 * 202 is in the table exactly once (DuckDB counts the rows of its live files). That start is the next
 * scenario's service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '#shared/domain/tokens.ts';
import { apiClient } from '../support/api.ts';
import { AcceptedLedger, burst, exists, portIsFree, stopsServiceEnv, until } from '../support/local-stops.ts';
import {
  type LocalServicePorts,
  localServicePorts,
  type NpmStart,
  standInPids,
  startWithNpm,
} from '../support/runtime-process.ts';
import { createWebhook, type Webhook } from '../support/webhooks.ts';

const adminKey = issueToken('apiKey').token;
const serviceEnv = stopsServiceEnv(adminKey);

describe('npm start stopped through its own pid keeps every 202 and leaves nothing running', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-local-stops-npm-'));
  let ports: LocalServicePorts;
  let hook: Webhook;
  const ledger = new AcceptedLedger(adminKey, () => hook);
  /** The `npm start` running now: each scenario stops it and starts the next one. */
  let npm: NpmStart | undefined;

  // A whole service's start: on a busy machine it takes longer than the suite's hook timeout.
  beforeAll(async () => {
    ports = await localServicePorts();
    npm = await startWithNpm(dataDir, ports, serviceEnv);
    hook = await createWebhook(apiClient(npm.url, adminKey), { store: { endpoint: npm.s3Endpoint } });
  }, 300_000);
  afterAll(() => {
    // The last start, and whatever a test that failed left running: npm's group, each stand-in's.
    for (const pid of [...(npm ? [-npm.pid] : []), ...standInPids(dataDir).flatMap((pid) => [-pid, pid])])
      if (exists(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGKILL'] as const) {
    it(`${signal} to npm start's own pid during a burst: the service drains and stops, nothing lost, nothing left running`, {
      timeout: 360_000,
    }, async () => {
      const running = npm as NpmStart;
      const started = [running.pid, ...standInPids(dataDir)];
      let signalled = false;
      const sent = await burst(running, hook, 300, (count) => {
        if (count === 80 && !signalled) {
          signalled = true;
          process.kill(running.pid, signal);
        }
      });
      const exit = await running.exited;
      // npm's group holds npm and the service; each stand-in leads a group of its own.
      const left = await until(
        'processes npm start ran',
        () => [-running.pid, ...started].filter(exists),
        (pids) => pids.length === 0,
        60_000,
      );
      const busyPorts = [];
      for (const port of Object.values(ports)) if (!(await portIsFree(port))) busyPorts.push(port);
      expect.soft(sent.unclean).toEqual([]);
      expect.soft(Object.keys(sent.statuses).filter((status) => status !== '202' && status !== '503')).toEqual([]);
      expect.soft(Object.keys(sent.errors).filter((code) => code !== 'ECONNREFUSED')).toEqual([]);
      expect
        .soft({
          exit,
          left,
          busyPorts,
          stopped: running.output().includes('Stopped.'),
          failed: /Stop failed|ECONNREFUSED/.test(running.output()),
        })
        .toEqual({
          exit: signal === 'SIGKILL' ? { code: null, signal: 'SIGKILL' } : { code: 0, signal: null },
          left: [],
          busyPorts: [],
          stopped: true,
          failed: false,
        });
      npm = await startWithNpm(dataDir, ports, serviceEnv);
      await ledger.expectEveryAcceptedRowOnce(npm, sent.accepted);
    });
  }
});
