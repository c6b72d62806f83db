/**
 * A 202 is a promise on one machine too. The whole of the local service runs in a process group of
 * its own and is stopped the ways a machine stops it — SIGKILL of the group (with or without its
 * stand-ins) during a burst, during a batch write and during a graceful stop; SIGINT to the group
 * (Ctrl-C) and SIGTERM to every process (systemd) during a burst — and restarted on the same
 * DATA_DIR. After each restart the ingest queue drains and DuckDB counts the rows of the table's live
 * files by message id: every message id ever answered 202 must be there exactly once. The scenarios
 * share one DATA_DIR, and each restart is the next scenario's service. `npm start` stopped through
 * its own pid: test/integration/local-stops-npm.test.ts (a file of its own, so that the two chains of
 * restarts run side by side).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '#shared/domain/tokens.ts';
import { apiClient } from '../support/api.ts';
import {
  AcceptedLedger,
  burst,
  exists,
  queued,
  rowsByMessageId,
  sleep,
  stopsServiceEnv,
  until,
} from '../support/local-stops.ts';
import {
  type LocalService,
  type LocalServicePorts,
  localServicePorts,
  standInPids,
  startLocalService,
} from '../support/runtime-process.ts';
import { createWebhook, type Webhook } from '../support/webhooks.ts';

const adminKey = issueToken('apiKey').token;
const serviceEnv = stopsServiceEnv(adminKey);

describe('a local service stopped or killed at any moment keeps every 202', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tributary-local-stops-'));
  let ports: LocalServicePorts;
  let service: LocalService | undefined;
  let hook: Webhook;
  const ledger = new AcceptedLedger(adminKey, () => hook);

  async function start(): Promise<LocalService> {
    service = await startLocalService(dataDir, ports, serviceEnv);
    return service;
  }

  /** Files the batch writer has put in the tenant store so far (s3rver keeps each object in a file). */
  function dataFilesOnDisk(): number {
    const bucket = path.join(dataDir, 's3', 'demo-bucket');
    try {
      return readdirSync(bucket, { recursive: true }).filter((name) => String(name).endsWith('.parquet._S3rver_object'))
        .length;
    } catch {
      return 0;
    }
  }

  // A whole service's start: on a busy machine it takes longer than the suite's hook timeout.
  beforeAll(async () => {
    ports = await localServicePorts();
    const running = await start();
    hook = await createWebhook(apiClient(running.url, adminKey), { store: { endpoint: running.s3Endpoint } });
  }, 300_000);
  afterAll(async () => {
    if (service) await service.killGroup({ everything: true });
    // A test that failed while a stand-in ran on.
    for (const pid of standInPids(dataDir)) if (exists(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL to the group and its stand-ins during a burst (a power cut)', { timeout: 180_000 }, async () => {
    const running = service as LocalService;
    let killed: Promise<void> | undefined;
    const sent = await burst(running, hook, 300, (count) => {
      if (count === 80) killed = running.killGroup({ everything: true });
    });
    await killed;
    expect(sent.accepted.length).toBeGreaterThanOrEqual(80);
    await ledger.expectEveryAcceptedRowOnce(await start(), sent.accepted);
  });

  it('SIGKILL to the group during a batch write', { timeout: 180_000 }, async () => {
    const running = service as LocalService;
    const before = dataFilesOnDisk();
    const sending = burst(running, hook, 200);
    await until('a data file written', dataFilesOnDisk, (files) => files > before, 60_000);
    await running.killGroup();
    await ledger.expectEveryAcceptedRowOnce(await start(), (await sending).accepted);
  });

  it('SIGKILL to the group and its stand-ins during a graceful stop', { timeout: 180_000 }, async () => {
    const running = service as LocalService;
    let stopped = false;
    const sending = burst(running, hook, 300, (count) => {
      if (count === 80 && !stopped) {
        stopped = true;
        running.signalGroup('SIGTERM');
      }
    });
    await until(
      'the stop begun',
      () => running.output(),
      (output) => /stopping/i.test(output),
      30_000,
    );
    await sleep(150);
    await running.killGroup({ everything: true });
    await ledger.expectEveryAcceptedRowOnce(await start(), (await sending).accepted);
  });

  // Ctrl-C in a terminal signals the process group; systemd's stop (KillMode=control-group)
  // signals every process of the unit, the stand-ins included.
  for (const [signal, everything] of [
    ['SIGINT', false],
    ['SIGTERM', true],
  ] as const) {
    it(`${signal} to the ${everything ? 'group and every stand-in' : 'group'} during a burst: clean 503s, a clean exit, nothing lost`, {
      timeout: 180_000,
    }, async () => {
      const running = service as LocalService;
      let signalled = false;
      const sent = await burst(running, hook, 300, (count) => {
        if (count === 80 && !signalled) {
          signalled = true;
          running.signalGroup(signal, { everything });
        }
      });
      const exit = await running.exited;
      expect.soft(sent.unclean).toEqual([]);
      expect.soft(Object.keys(sent.statuses).filter((status) => status !== '202' && status !== '503')).toEqual([]);
      expect.soft(Object.keys(sent.errors).filter((code) => code !== 'ECONNREFUSED')).toEqual([]);
      expect.soft({ exit, failed: /Stop failed|ECONNREFUSED/.test(running.output()) }).toEqual({
        exit: { code: 0, signal: null },
        failed: false,
      });
      await ledger.expectEveryAcceptedRowOnce(await start(), sent.accepted);
    });
  }

  it('commits everything staged at a graceful stop, however far its freshness target is', {
    timeout: 180_000,
  }, async () => {
    // Prepare: a service whose tables are due only an hour after their oldest staged envelope.
    const hourly = { ...serviceEnv, TABLE_FRESHNESS_SECONDS: '3600' };
    const first = service as LocalService;
    first.signalGroup('SIGINT');
    await first.exited;
    service = await startLocalService(dataDir, ports, hourly);
    const sent = await burst(service, hook, 40);
    await until(
      'envelopes still queued',
      () => queued(service as LocalService),
      (depth) => depth === 0,
      60_000,
    );
    const before = await rowsByMessageId(service, ledger.location);

    // Act: a graceful stop, then a start that would not commit for an hour.
    service.signalGroup('SIGINT');
    const exit = await service.exited;
    service = await startLocalService(dataDir, ports, hourly);
    const after = await rowsByMessageId(service, ledger.location);

    // Assess: staged (not in the table) before the stop, every one committed once by it.
    const inTable = (rows: Map<string, number>) => sent.accepted.filter((id) => rows.get(id) === 1).length;
    expect({ exit, accepted: sent.accepted.length, before: inTable(before), after: inTable(after) }).toEqual({
      exit: { code: 0, signal: null },
      accepted: 40,
      before: 0,
      after: 40,
    });
    ledger.accepted.push(...sent.accepted);
  });

  it('stops an idle service at once, however many signals reach it', { timeout: 60_000 }, async () => {
    const running = service as LocalService;
    running.signalGroup('SIGINT');
    running.signalGroup('SIGTERM', { everything: true });
    await sleep(100);
    running.signalGroup('SIGTERM', { everything: true });
    const exit = await running.exited;
    expect({ exit, failed: /Stop failed|ECONNREFUSED/.test(running.output()) }).toEqual({
      exit: { code: 0, signal: null },
      failed: false,
    });
  });

  it('stops during its start with every poller stopped before the queues it polls', { timeout: 120_000 }, async () => {
    // Act: Ctrl-C while the functions start (their pollers begin polling the SQS stand-in then).
    const starting = await startLocalService(dataDir, ports, serviceEnv, 'Starting the functions');
    service = starting;
    starting.signalGroup('SIGINT');
    const exit = await starting.exited;
    // Assess: a clean stop, and no poller that found its queue gone.
    const output = starting.output();
    expect({ exit, pollers: output.match(/^poller .*$/gm) ?? [], stopped: output.includes('Stopped.') }).toEqual({
      exit: { code: 0, signal: null },
      pollers: [],
      stopped: true,
    });
  });
});
