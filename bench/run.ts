/**
 * `npm run bench`: the numbers the closing notes report, measured on this machine in one run.
 *   writer    envelopes → zstd Parquet (Tributary's encoder vs DuckDB, single-threaded, same rows)
 *   ingest    the local front under load beside a bare node:http server, handler CPU, freshness,
 *             and whether every 202 reached the table
 *   functions every function bundled as it deploys: size, cold init, whether it loads Parquet
 *   table     a Delta table of 10,000 commits: DynamoDB units per event, opening it with and without
 *             checkpoints, compaction (bench/table.ts)
 *   memory    the ingest function's memory size: cost per million requests and p99 at each size
 *   zipf      1,000 connections sending 20 requests/s between them (Zipf), the deployed batching
 *             window: the latency senders see while the writer works, how soon an event is listed,
 *             commits per event and rows per file, and that every 202 is stored once
 *   events    the events route's read path over one request's budget of files: listing, searching
 *             bodies for text, matching a JSON value (bench/events.ts)
 *   staging   what one commit pass for the deployment could not take: 10,000 tables with one webhook
 *             each, 30,000 webhooks to one table, and a freshness target of 2 s (bench/staging.ts)
 *   cost      what a million 1 KB events cost on AWS, counted from the calls made in local mode
 *   scale     how far each shape of traffic goes under AWS's published limits (bench/scale.ts)
 *   decode    pipelines' decoding per format (rows/s, MB/s), and how fast hostile XML is rejected
 *   burst     the acceptance check for new connections: 10,000 connections over 10 tenants each send
 *             their first webhook, 32 at a time, freshness target 120 s: every answer 202, every table
 *             committed once within 15 minutes past its window, its row there once (read by DuckDB),
 *             nothing dead-lettered, no error logged; a FAIL line and exit code 1 otherwise (bench/burst.ts)
 * Each side of a comparison runs in its own process, so peak memory is its own.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { benchBurst } from './burst.ts';
import { benchDecode } from './decode.ts';
import { benchFunctions } from './functions.ts';
import { benchIngest, benchIngestFrontOnly, benchQueueJournal } from './ingest.ts';
import { benchIngestMemory } from './ingest-memory.ts';
import { benchFreshness, benchManyTables, benchOneTable, type Verdict } from './staging.ts';
import { benchZipf } from './zipf.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
const only = new Set(process.argv.slice(2));
const want = (name: string) => only.size === 0 || only.has(name);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const lines: string[] = [];
/** Set by a part that checks an acceptance condition and finds it unmet: the run exits 1. */
let failed = false;
const row = (...cells: (string | number)[]) => lines.push(`| ${cells.join(' | ')} |`);

function runChild(script: string, ...args: string[]) {
  return JSON.parse(childOutput(script, ...args));
}

function childOutput(script: string, ...args: string[]): string {
  const showErrors = script === 'cost.ts' || script === 'scale.ts';
  return execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', path.join(import.meta.dirname, script), ...args],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', showErrors ? 'inherit' : 'ignore'],
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

if (want('writer')) {
  const rows = Number(process.env.BENCH_WRITER_ROWS ?? 100_000);
  const ours = runChild('writer-tributary.ts', String(rows));
  const duck = runChild('writer-duckdb.ts', String(rows));
  // Encoding compared with encoding: each from rows held in memory to a file. Reading the staged
  // NDJSON back is a commit's own step, shown apart.
  const encodeSeconds = ours.seconds - ours.readSeconds;
  const oursRate = rows / encodeSeconds;
  const duckRate = rows / duck.seconds;
  const budget = 3 * ours.rawBytes + 150 * 1024 * 1024;
  lines.push(
    `### Writer: ${rows.toLocaleString('en')} envelopes of ~1 KB (${mb(ours.rawBytes)} raw) → zstd Parquet`,
    '',
  );
  row('writer', 'rows/s', 'seconds', 'output', 'peak RSS', 'RSS before the timed part');
  row('---', '---', '---', '---', '---', '---');
  row(
    'Tributary: the rows a commit holds → files, cut and encoded as a commit does (apache-arrow + parquet-wasm)',
    Math.round(oursRate),
    encodeSeconds.toFixed(2),
    mb(ours.fileBytes),
    '',
    '',
  );
  row(
    '… with the staged NDJSON read back first, as a commit reads it',
    Math.round(rows / ours.seconds),
    ours.seconds.toFixed(2),
    mb(ours.fileBytes),
    mb(ours.peakRss),
    mb(ours.baselineRss),
  );
  row(
    'DuckDB, threads=1 (appender from envelope objects in memory + COPY)',
    Math.round(duckRate),
    duck.seconds.toFixed(2),
    mb(duck.fileBytes),
    mb(duck.peakRss),
    mb(duck.baselineRss),
  );
  row('DuckDB COPY alone', Math.round(rows / duck.copySeconds), duck.copySeconds.toFixed(2), '', '', '');
  lines.push(
    '',
    `ratio Tributary/DuckDB, encoding: ${(oursRate / duckRate).toFixed(2)} (target ≥ 1.0); ` +
      `peak ${mb(ours.peakRss)} against a budget of 3 × raw + 150 MB = ${mb(budget)}: ` +
      `the process with its modules loaded ${mb(ours.baselineRss)}, every row read back and held ${mb(ours.rowsRss - ours.baselineRss)} more ` +
      `(${ours.readSeconds.toFixed(2)} s), the ${ours.files} files' encoding ${mb(ours.peakRss - ours.rowsRss)} more at its peak`,
    '',
  );
}

/** A run's CPU per request by part (from /proc; nothing where there is none), and what it allows on this machine's cores. */
function cpuLine(name: string, cpu: [string, number][]): string[] {
  if (cpu.length <= 1) return [];
  const total = cpu.reduce((sum, [, micros]) => sum + micros, 0);
  const cores = os.availableParallelism();
  return [
    `CPU per request, ${name}: ${cpu.map(([part, micros]) => `${part} ${micros.toFixed(0)} µs`).join(', ')}; ` +
      `${total.toFixed(0)} µs in all, so ${cores} cores allow at most ${Math.round((cores * 1e6) / total).toLocaleString('en')} requests/s`,
  ];
}

if (want('ingest')) {
  const result = await benchIngest();
  const front = await benchIngestFrontOnly();
  const journal = await benchQueueJournal();
  lines.push('### Ingest: POST 1 KB bodies, 50 connections (autocannon)', '');
  row('server', 'requests/s', 'p50 ms', 'p99 ms', 'non-2xx');
  row('---', '---', '---', '---', '---');
  row(
    'bare node:http answering 202',
    Math.round(result.bare.rps),
    result.bare.p50,
    result.bare.p99,
    result.bare.non2xx,
  );
  row(
    'Tributary, whole service (writer running, freshness target 0)',
    Math.round(result.ingest.rps),
    result.ingest.p50,
    result.ingest.p99,
    result.ingest.non2xx,
  );
  row(
    'Tributary, whole service (writer running, default freshness target)',
    Math.round(result.staging.load.rps),
    result.staging.load.p50,
    result.staging.load.p99,
    result.staging.load.non2xx,
  );
  row(
    'Tributary, front only (consumers paused)',
    Math.round(front.load.rps),
    front.load.p50,
    front.load.p99,
    front.load.non2xx,
  );
  lines.push(
    '',
    `ratio to bare: ${((result.ingest.rps / result.bare.rps) * 100).toFixed(1)} % whole service (target ≥ 10 %; ` +
      `${((result.staging.load.rps / result.bare.rps) * 100).toFixed(1)} % at the default freshness target), ` +
      `${((front.load.rps / result.bare.rps) * 100).toFixed(1)} % front only (target ≥ 25 %)`,
    `ingest handler per request: ${result.handler.cpuMicros.toFixed(0)} µs CPU (target ≤ 1,000 µs), ${result.handler.wallMs.toFixed(2)} ms wall (sequential, SQS stand-in on another core)`,
    `writer at a freshness target of 0 (every batch's table committed by the writer at once, its heaviest load): ` +
      `${result.writer.rows.toLocaleString('en')} rows committed for ${result.writer.accepted.toLocaleString('en')} 202s counted ` +
      `(autocannon does not count requests in flight when it stops), ${result.writer.distinct.toLocaleString('en')} distinct message ids, ` +
      `${Math.round(result.writer.rowsPerSecond)} rows/s end to end against ${Math.round(result.writer.acceptedPerSecond)} 202s/s over the same ` +
      `${result.writer.loadSeconds.toFixed(0)} s of load (${((result.writer.rowsPerSecond / result.writer.acceptedPerSecond) * 100).toFixed(0)} %, target ≥ 90 %); ` +
      `when the senders stopped ${result.writer.behindAtEnd.toLocaleString('en')} envelopes were still to write, written ${result.writer.drainSeconds.toFixed(1)} s later`,
    `writer at the default freshness target (it stages each batch, safe and listed as pending; the table-commits schedule commits later): ` +
      `${result.staging.rows.toLocaleString('en')} rows staged for ${result.staging.accepted.toLocaleString('en')} 202s counted, ` +
      `${Math.round(result.staging.rowsPerSecond)} rows/s staged end to end against ${Math.round(result.staging.acceptedPerSecond)} 202s/s over the same ` +
      `${result.staging.loadSeconds.toFixed(0)} s of load (${((result.staging.rowsPerSecond / result.staging.acceptedPerSecond) * 100).toFixed(0)} %, target ≥ 90 %); ` +
      `when the senders stopped ${result.staging.behindAtEnd.toLocaleString('en')} envelopes were still to stage, staged ${result.staging.drainSeconds.toFixed(1)} s later`,
    `freshness (202 → row in the files endpoint, 1 s batching window, 20 req/s): ` +
      `p50 ${(result.freshness.p50 / 1000).toFixed(2)} s, p99 ${(result.freshness.p99 / 1000).toFixed(2)} s, missing ${result.freshness.missing}`,
    ...cpuLine('whole service, freshness target 0', result.writer.cpu),
    ...cpuLine('whole service, default freshness target', result.staging.cpu),
    ...cpuLine('front only', front.cpu),
    `durability (every 202 on disk first): the SQS stand-in's journal alone takes ${Math.round(journal.sendsPerSecond)} sends/s ` +
      `from 50 senders, ${journal.sendsPerFlush.toFixed(1)} sends per disk flush, a send waits p50 ${journal.p50.toFixed(2)} ms, p99 ${journal.p99.toFixed(2)} ms`,
    '',
  );
}

if (want('functions')) {
  const { functions: results } = await benchFunctions(10);
  const kb = (bytes: number) => (bytes / 1024).toFixed(0);
  lines.push(
    '### Functions: bundle size (the AWS SDK inside) and cold init (import in a fresh node process, median of 10)',
    '',
  );
  row(
    'function',
    'kind',
    'bundle KB',
    'without the SDK KB',
    'init ms',
    'SDK clients at start',
    'loads arrow/parquet-wasm',
    'target',
  );
  row('---', '---', '---', '---', '---', '---', '---', '---');
  const misses: string[] = [];
  for (const fn of results) {
    const target =
      fn.kind === 'api' ? '≤ 300 KB without the SDK, ≤ 80 ms' : fn.name === 'ingest-writer' ? '≤ 500 ms' : '';
    const missed =
      (fn.kind === 'api' && (fn.bytesBesideSdk > 300 * 1024 || fn.initMs > 80)) ||
      (fn.name === 'ingest-writer' && fn.initMs > 500);
    if (missed) misses.push(fn.name);
    row(
      fn.name,
      fn.kind,
      kb(fn.bytes),
      kb(fn.bytesBesideSdk),
      fn.initMs.toFixed(1),
      fn.clients.map((client) => client.replace('client-', '')).join(', ') || 'none',
      fn.parquet ? 'yes' : 'no',
      missed ? `${target} MISSED` : target,
    );
  }
  const api = results.filter((fn) => fn.kind === 'api');
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  lines.push(
    '',
    `API functions: ${api.length}, largest ${kb(Math.max(...api.map((fn) => fn.bytes)))} KB (${kb(Math.max(...api.map((fn) => fn.bytesBesideSdk)))} KB without the SDK), ` +
      `init median ${median(api.map((fn) => fn.initMs)).toFixed(1)} ms, slowest ${Math.max(...api.map((fn) => fn.initMs)).toFixed(1)} ms; targets missed: ${misses.length ? misses.join(', ') : 'none'}`,
    '',
  );
}

if (want('table')) {
  const result = runChild('table.ts');
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  lines.push('### DynamoDB units per event of the commit path (warm writer, ReturnConsumedCapacity)', '');
  row('envelopes per batch', 'read units per event', 'write units per event', 'target');
  row('---', '---', '---', '---');
  for (const unit of result.units)
    row(unit.batch, unit.readPerEvent.toFixed(4), unit.writePerEvent.toFixed(4), '≤ 0.1 each');
  const open = result.open;
  lines.push(
    '',
    `### A table of ${result.build.commits.toLocaleString('en')} commits (${result.build.rowsPerCommit} envelopes each, 4 writers at once, ${result.build.retried} commits retried), built in ${result.build.seconds.toFixed(0)} s`,
    '',
  );
  row(`opening the latest snapshot (version ${open.version})`, 'log objects read', 'ms', 'target');
  row('---', '---', '---', '---');
  row(
    `from checkpoint ${open.withCheckpoint.checkpoint}, first open in the process`,
    open.withCheckpoint.objectsRead,
    open.withCheckpoint.ms.toFixed(0),
    '≤ 12 objects, ≤ 300 ms',
  );
  row(
    '… opened again (median of 5)',
    open.withCheckpoint.objectsRead,
    open.withCheckpoint.againMedianMs.toFixed(0),
    '',
  );
  row('replaying every JSON commit', open.withoutCheckpoint.objectsRead, open.withoutCheckpoint.ms.toFixed(0), '');
  row(
    `through its Iceberg metadata (hint, metadata, manifest list, ${open.iceberg.manifests} manifests)`,
    open.iceberg.objectsRead,
    open.iceberg.ms.toFixed(0),
    '≤ 12 objects',
  );
  lines.push(
    '',
    `same live files both ways: ${open.sameFiles ? 'yes' : 'NO'}; through Iceberg: ${open.iceberg.sameFiles ? 'yes' : 'NO'} (its metadata written in ${open.iceberg.writeMs.toFixed(0)} ms)`,
    '',
  );
  const compaction = result.compaction;
  row('day', 'files before', 'bytes before', 'files after', 'bytes after', 'target: ≤ ceil(bytes / 128 MiB) + 1');
  row('---', '---', '---', '---', '---', '---');
  for (const [day, before] of Object.entries(compaction.before) as [string, { files: number; bytes: number }][]) {
    const after = compaction.after[day] ?? { files: 0, bytes: 0 };
    const bound = Math.ceil(after.bytes / compaction.targetBytes) + 1;
    row(
      day,
      before.files,
      kb(before.bytes),
      after.files,
      kb(after.bytes),
      `${bound}${after.files <= bound ? '' : ' MISSED'}`,
    );
  }
  lines.push(
    '',
    `maintenance run: ${compaction.seconds.toFixed(1)} s (${compaction.report.filesRemoved} files removed, ${compaction.report.filesAdded} added, ` +
      `${compaction.report.logFilesRemoved} temporary commits cleaned), RSS growth ${(compaction.rssGrowthBytes / 1024 / 1024).toFixed(0)} MB; ` +
      `rows ${compaction.rows.after.toLocaleString('en')} of ${compaction.rows.expected.toLocaleString('en')}; opening afterwards reads ${compaction.openAfter.objectsRead} log objects`,
    '',
  );
}

if (want('memory')) {
  const result = await benchIngestMemory();
  const ms = (value: number) => value.toFixed(1);
  lines.push(
    `### The ingest function's memory size: one instance, ${result.invocations.toLocaleString('en')} requests at 20/s (deployed: ${result.deployedMb} MB)`,
    '',
    `CPU per request at full speed: mean ${Math.round(result.cpuMicros.mean)} µs, p50 ${Math.round(result.cpuMicros.p50)} µs, ` +
      `p99 ${Math.round(result.cpuMicros.p99)} µs; a request takes p50 ${ms(result.fullSpeed.p50)} ms, p99 ${ms(result.fullSpeed.p99)} ms ` +
      `against the stand-ins; cold start ${Math.round(result.fullSpeed.initMs)} ms; peak memory ${Math.round(result.maxRssMb)} MB`,
    '',
  );
  row(
    'memory',
    'vCPU share',
    'billed ms/request',
    '$ per million requests',
    'p50 / p99 ms, billed model',
    'p50 / p99 ms, CPU held to the share',
    'cold start ms, model / held',
  );
  row('---', '---', '---', '---', '---', '---', '---');
  for (const size of result.sizes)
    row(
      `${size.memoryMb} MB`,
      size.share.toFixed(3),
      size.billedMs.toFixed(1),
      size.dollarsPerMillion.toFixed(3),
      `${ms(size.modelP50)} / ${ms(size.modelP99)}`,
      size.throttled ? `${ms(size.throttled.p50)} / ${ms(size.throttled.p99)}` : 'not measured',
      `${Math.round(size.modelInitMs)} / ${size.throttled ? Math.round(size.throttled.initMs) : '–'}`,
    );
  lines.push(
    '',
    result.throttling
      ? `CPU held with ${result.throttling}; those durations include the local stand-ins' latency, not AWS's`
      : 'CPU not held: this machine offers no writable cgroup CPU controller (the model columns stand alone)',
    '',
  );
}

if (want('zipf')) {
  const result = await benchZipf();
  const ms = (value: number) => Math.round(value).toLocaleString('en');
  lines.push(
    `### Zipf traffic: ${result.connections.toLocaleString('en')} connections, ${result.requestsPerSecond} requests/s between them (Zipf 1.0), 1 KB bodies, ${result.seconds} s, ${result.batchWindowSeconds} s batching window, ${result.freshnessSeconds} s freshness target`,
    '',
  );
  row('requests', '202', 'other answers', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'target');
  row('---', '---', '---', '---', '---', '---', '---', '---');
  const others = Object.entries(result.answers);
  row(
    result.requests.toLocaleString('en'),
    result.accepted.toLocaleString('en'),
    others.length ? others.map(([answer, count]) => `${count} × ${answer}`).join(', ') : 'none',
    ms(result.latency.p50),
    ms(result.latency.p90),
    ms(result.latency.p99),
    ms(result.latency.max),
    `p99 ≤ 1,000 ms${result.latency.p99 > 1000 ? ' MISSED' : ''}`,
  );
  lines.push(
    '',
    `${result.connectionsUsed} connections sent at least once; the busiest sent ${(result.busiestShare * 100).toFixed(1)} % of the requests`,
    `a connection's first request (a new TCP connection, its source in no cache yet): ${result.firstRequests.count.toLocaleString('en')} requests, ` +
      `p50 ${ms(result.firstRequests.p50)} ms, p99 ${ms(result.firstRequests.p99)} ms; the others: ${result.laterRequests.count.toLocaleString('en')}, ` +
      `p50 ${ms(result.laterRequests.p50)} ms, p99 ${ms(result.laterRequests.p99)} ms`,
    `the slowest 1 % by when they were due: ${result.slowByTenSeconds.map(([second, count]) => `${count} at ${second}–${second + 10} s`).join(', ')}`,
    `stored: ${result.storedOnce.toLocaleString('en')} of ${result.accepted.toLocaleString('en')} 202s exactly once, ${result.acceptedMissing} missing, ${result.storedTwice} stored twice; ` +
      `requests answered otherwise but stored: ${result.refusedButStored}`,
    `the writer staged what was queued ${result.drainSeconds.toFixed(1)} s after the last answer (one batching window is ${result.batchWindowSeconds} s)`,
    `an accepted event listed by the events endpoint (pending or committed), from its 202, over ${result.listed.probes} probes: ` +
      `p50 ${ms(result.listed.p50)} ms, p99 ${ms(result.listed.p99)} ms, max ${ms(result.listed.max)} ms`,
    `commits (freshness target ${result.freshnessSeconds} s): ${result.files.toLocaleString('en')} files, ` +
      `${result.commitsPerEvent.toFixed(3)} commits per event, ${result.rowsPerFile.toFixed(1)} rows per file`,
    '',
  );
}

if (want('staging')) {
  const ms = (value: number) => Math.round(value).toLocaleString('en');
  const kept = (result: Verdict) =>
    `${result.once.toLocaleString('en')} of ${result.accepted.toLocaleString('en')} 202s (of ${result.requests.toLocaleString('en')} requests) stored exactly once, ` +
    `${result.missing} missing, ${result.twice} stored twice; ${result.deadLettered} dead-lettered, ${result.failedCommits} commits failed; ` +
    `senders saw p50 ${ms(result.latency.p50)} ms, p99 ${ms(result.latency.p99)} ms`;
  lines.push('### Staging: shapes a deployment-wide commit pass could not take (2 s writer window)', '');
  const fresh = await benchFreshness();
  lines.push(
    `freshness target ${fresh.freshnessSeconds} s, ${fresh.tables} tables, ${fresh.perSecond} requests/s for ${fresh.seconds} s: from a 202 to the commit holding its row ` +
      `p50 ${ms(fresh.fromAnswerToCommit.p50)} ms, p90 ${ms(fresh.fromAnswerToCommit.p90)} ms, p99 ${ms(fresh.fromAnswerToCommit.p99)} ms, max ${ms(fresh.fromAnswerToCommit.max)} ms (target p99 ≤ 5,000 ms${fresh.fromAnswerToCommit.p99 > 5000 ? ', MISSED' : ''}); ${kept(fresh)}`,
  );
  const one = await benchOneTable();
  lines.push(
    `one table, ${one.rows.toLocaleString('en')} webhooks sent in ${one.sendSeconds.toFixed(1)} s (${ms(one.sendRate)}/s), freshness target ${one.freshnessSeconds} s: ` +
      `all committed ${one.committedSecondsAfterLastAnswer.toFixed(0)} s after the last 202, in ${one.commits} commits (the largest ${one.largestCommitRows.toLocaleString('en')} rows, ${one.files} files); ${kept(one)}`,
  );
  const many = await benchManyTables();
  lines.push(
    `${many.tables.toLocaleString('en')} tables, one webhook each, sent in ${many.sendSeconds.toFixed(1)} s (${ms(many.sendRate)}/s), freshness target ${many.freshnessSeconds} s: ` +
      `all committed ${many.committedSecondsAfterLastAnswer.toFixed(0)} s after the last 202 (${ms(many.tables / Math.max(1, many.committedSecondsAfterLastAnswer - many.freshnessSeconds))} tables/s past the target); ${kept(many)}`,
    '',
  );
}

if (want('decode')) lines.push(...benchDecode());

if (want('events')) {
  const result = runChild('events.ts', process.env.BENCH_EVENTS_ROWS_PER_FILE ?? '5000');
  lines.push(
    `### Events: one request's ${result.files} files of ${result.rowsPerFile.toLocaleString('en')} envelopes (${mb(result.rawBytes)} of bodies, ${mb(result.parquetBytes)} of Parquet), in memory`,
    '',
  );
  row(
    'request',
    'files read',
    'Parquet read',
    'events tested',
    'found',
    'seconds',
    'ms per file',
    'bodies MB/s',
    'peak RSS',
  );
  row('---', '---', '---', '---', '---', '---', '---', '---', '---');
  const labels: Record<string, string> = {
    listing: 'newest 50 (no filter)',
    containsNothing: 'contains: text no body holds',
    containsRare: 'contains: text one body holds',
    jsonString: 'json_path = a string one body holds',
    jsonNumber: 'json_path = a number one body holds (every body parsed)',
  };
  for (const [name, label] of Object.entries(labels)) {
    const r = result.results[name];
    const bodies = (result.rawBytes * r.filesRead) / result.files;
    row(
      label,
      r.filesRead,
      mb(r.bytesRead),
      r.scanned.toLocaleString('en'),
      r.found,
      r.seconds.toFixed(2),
      ((r.seconds * 1000) / r.filesRead).toFixed(0),
      (bodies / 1024 / 1024 / r.seconds).toFixed(0),
      mb(r.peakRss),
    );
  }
  lines.push('');
}

if (want('cost')) {
  // Its own process: it runs local mode with every function's handler wrapped by a meter.
  lines.push(childOutput('cost.ts').trimEnd(), '');
}

if (want('scale')) {
  // Its own process, as the cost bench: local mode with every function's handler metered.
  lines.push(childOutput('scale.ts').trimEnd(), '');
}

if (want('burst')) {
  const result = await benchBurst();
  const ms = (value: number) => Math.round(value).toLocaleString('en');
  const count = (value: number) => value.toLocaleString('en');
  const others = Object.entries(result.answers).filter(([answer]) => answer !== '202');
  const depths = Object.entries(result.deadLetterDepths);
  const depth = depths.reduce((sum, [, messages]) => sum + messages, 0);
  const errors = Object.entries(result.errors).sort((a, b) => b[1] - a[1]);
  const errorCount = errors.reduce((sum, [, lines]) => sum + lines, 0);
  const sinceBurst = Object.values(result.errorsSinceBurst).reduce((sum, lines) => sum + lines, 0);
  const window = result.freshnessSeconds + result.graceSeconds;
  const checks: [string, boolean][] = [
    ['every request 202', result.accepted === result.sources && others.length === 0],
    [`every table committed within ${window} s of its 202`, result.committedInTime === result.sources],
    ['every table committed once', result.committedOnce === result.sources],
    ['every table holds its one row exactly once', result.exactlyOnce === result.sources],
    ['nothing dead-lettered', depth === 0 && result.deadLettered === 0],
    ['no error logged', errorCount === 0],
  ];
  const missed = checks.filter(([, met]) => !met).map(([name]) => name);
  lines.push(
    `### Burst: ${count(result.sources)} connections over ${result.tenants} tenants each send their first webhook, ${result.senders} senders at a time, freshness target ${result.freshnessSeconds} s (${result.batchWindowSeconds} s writer window)`,
    '',
    `setup (not measured): ${count(result.sources)} connections made through the API in ${result.setupSeconds.toFixed(0)} s; ` +
      `load average ${result.loadBefore.map((load) => load.toFixed(2)).join(', ')} before the burst, ${result.loadAfterBurst.map((load) => load.toFixed(2)).join(', ')} after it`,
    `requests: ${count(result.requests)} sent in ${result.burstSeconds.toFixed(1)} s (${ms(result.requests / result.burstSeconds)}/s); ` +
      `${count(result.answers['202'] ?? 0)} × 202, ${others.length ? others.map(([answer, n]) => `${count(n)} × ${answer}`).join(', ') : 'no other answer'}`,
    `latency: p50 ${ms(result.latency.p50)} ms, p99 ${ms(result.latency.p99)} ms, max ${ms(result.latency.max)} ms`,
    Number.isNaN(result.allCommittedSeconds)
      ? `committed: ${count(result.committed)} of ${count(result.sources)} tables when the wait ended ${result.waitedSeconds.toFixed(0)} s after the first send (15 min past the freshness window of the last 202); ${count(result.committedInTime)} within ${window} s of their 202`
      : `committed: all ${count(result.sources)} tables, the last ${result.allCommittedSeconds.toFixed(0)} s after the first send; ${count(result.committedInTime)} within ${window} s of their 202`,
    `from a 202 to its table's commit: p50 ${(result.commitDelay.p50 / 1000).toFixed(0)} s, max ${(result.commitDelay.max / 1000).toFixed(0)} s`,
    `tables committed once: ${count(result.committedOnce)}, more than once: ${count(result.committedMoreThanOnce)}; ` +
      `holding their one row exactly once (read by DuckDB, matched by message id and request id): ${count(result.exactlyOnce)} of ${count(result.sources)}; ` +
      `tables holding another number of rows: ${count(result.tablesWithOtherRows)}`,
    `dead-letter queues: ${depth} messages (${depths.map(([name, messages]) => `${name} ${messages}`).join(', ')}); tributary_dead_lettered_total ${result.deadLettered}`,
    `error-level log lines from the service: ${count(errorCount)} (${count(sinceBurst)} since the burst began)`,
    ...errors.map(([message, n]) => `  ${count(n)} × ${message}`),
    `warning-level log lines since the burst began (not a condition): ${count(Object.values(result.warningsSinceBurst).reduce((sum, lines) => sum + lines, 0))}`,
    ...Object.entries(result.warningsSinceBurst)
      .sort((a, b) => b[1] - a[1])
      .map(([message, n]) => `  ${count(n)} × ${message}`),
    missed.length ? `FAIL: ${missed.join('; ')}` : 'PASS: every acceptance condition met',
    '',
  );
  if (missed.length) failed = true;
}

process.stdout.write(`${lines.join('\n')}\n`);
process.exit(failed ? 1 : 0);
