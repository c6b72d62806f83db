/**
 * The operator console as a person uses it: a real headless Chromium (Debian's, driven by
 * playwright-core) against the running local service. Every scene keeps a screenshot of what it
 * checked under .artifacts/console/ and runs axe-core in the page on each view it visits.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { IcebergRestCatalog } from 'iceberg-js';
import { type Browser, type BrowserContext, chromium, type Locator, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '#local/free-port.ts';
import { buildConsole } from '../../console/build.ts';
import { apiClient } from '../support/api.ts';
import { readEnvelopeTable, tableConfiguration } from '../support/delta.ts';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { createTenantWithUsers, createUser, unique } from '../support/fixtures.ts';
import { createWebhook, ingest, waitForRows } from '../support/webhooks.ts';

const api = apiClient();
const baseUrl = inject('baseUrl');
const artifacts = path.resolve(import.meta.dirname, '..', '..', '.artifacts', 'console');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The flags this machine's Chromium needs: no sandbox as root, and no calls home on a closed network. */
const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  // As `npm start` does before it serves the console.
  buildConsole();
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumFlags });
});
afterAll(async () => {
  await browser?.close();
});

interface Tab {
  context: BrowserContext;
  page: Page;
  /** Script errors and CSP violations the page reported: none is expected. */
  problems: string[];
}

async function openTab(): Promise<Tab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A refused request (the wrong key at sign-in, a run of a pipeline not deployed) is logged by the
    // browser as a failed resource load; a failed one is reported below with its address.
    if (message.type() === 'error' && !/status of [45][0-9]{2}/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  page.on('response', (response) => {
    // GET /health answers 503 with its report when a check took over 3 s, as on a machine the whole
    // suite keeps busy: the overview shows it as a figure (its failing checks), not as an error. Any
    // other 503 with Retry-After is the service busy for a moment, which the console asks again.
    const health = response.status() === 503 && new URL(response.url()).pathname === '/health';
    const busy = response.status() === 503 && response.headers()['retry-after'] !== undefined;
    if (response.status() >= 500 && !health && !busy)
      problems.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  return { context, page, problems };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: /^Overview/ }).waitFor();
}

/** Waits on the page, not the clock; on time-out it says (and keeps a picture of) what the page showed last. */
async function waitForText(locator: Locator, expected: RegExp, timeout = 30_000): Promise<void> {
  try {
    await locator.filter({ hasText: expected }).first().waitFor({ timeout });
  } catch {
    const page = locator.page();
    await page.screenshot({ path: path.join(artifacts, `timed-out-${Date.now()}.png`), fullPage: true });
    const alerts = await page.getByRole('alert').allTextContents();
    throw new Error(
      `Waited ${timeout} ms for ${expected}; the page showed: ${JSON.stringify(await locator.allTextContents())}, alerts: ${JSON.stringify(alerts)}`,
    );
  }
}

const seriousViolations: Record<string, string[]> = {};

/** axe-core in the page; serious and critical findings fail, with where they are. */
async function checkAccessibility(page: Page, view: string): Promise<void> {
  await page.evaluate(axeSource);
  // Expressions rather than functions: the tests compile without the browser's types.
  const violations = (await page.evaluate('axe.run(document).then((result) => result.violations)')) as {
    id: string;
    impact: string;
    nodes: { target: string[] }[];
  }[];
  seriousViolations[view] = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}) at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
  expect(seriousViolations[view], `axe on ${view}`).toEqual([]);
  await page.screenshot({ path: path.join(artifacts, `${view}.png`), fullPage: true });
}

const row = (page: Page, linkName: string) => page.locator('tr', { has: page.getByRole('link', { name: linkName }) });
const cell = (container: Locator, label: string) => container.locator(`td[data-label="${label}"]`);
const figures = (page: Page) => page.getByRole('table', { name: /Since the connection/ });
/** The staged rows' column: named so that they read as waiting, not as missing. */
const staged = 'Staged (awaiting commit)';

/** Sets a table property as an operator's script would, through the API. */
async function setFreshness(dataSetId: string, value: string): Promise<void> {
  const set = await api.put<{ effective: { freshness_seconds: number } }>(
    `/api/data-sets/${dataSetId}/table-properties`,
    { json: { properties: { 'tributary.freshness': value } } },
  );
  expect(set.status, set.text).toBe(200);
}

describe('the operator console', () => {
  let tab: Tab;
  let tenant: Awaited<ReturnType<typeof createTenantWithUsers>>;
  let hook: Awaited<ReturnType<typeof createWebhook>>;
  let hookName: string;
  // A tenant whose store answers nothing (a port no one listens on): its webhooks fail their
  // deliveries while the other scenes run.
  let failing: Awaited<ReturnType<typeof createWebhook>>;
  let failingName: string;
  let sent: string[];

  beforeAll(async () => {
    const deadEndpoint = `http://127.0.0.1:${await freePort()}`;
    [tenant, failing] = await Promise.all([
      createTenantWithUsers(api),
      createWebhook(api, { store: { endpoint: deadEndpoint } }),
    ]);
    sent = [
      (await ingest(api, failing, '{"n":1}')).body.message_id,
      (await ingest(api, failing, '{"n":2}')).body.message_id,
    ];
    hook = await createWebhook(api, { tenantId: tenant.tenantId });
    hookName = (await api.get<{ name: string }>(`/api/connections/${hook.connectionId}`)).body.name;
    failingName = (await api.get<{ name: string }>(`/api/connections/${failing.connectionId}`)).body.name;
    tab = await openTab();
  });
  afterAll(async () => {
    await tab?.context.close();
    process.stderr.write(`console axe, serious or critical findings per view: ${JSON.stringify(seriousViolations)}\n`);
  });

  it('is one page with a strict policy, and refuses a wrong key at sign-in in the API’s words', async () => {
    const page = await api.get('/console', { key: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(
      ['x-frame-options', 'cross-origin-opener-policy', 'strict-transport-security', 'referrer-policy'].map((name) =>
        page.headers.get(name),
      ),
    ).toEqual(['DENY', 'same-origin', 'max-age=31536000', 'no-referrer']);
    // No inline script, style or event handler: the page only points at its assets.
    expect(page.text).not.toMatch(/<script(?![^>]*\ssrc=)|<style|\sstyle=|\son[a-z]+=/i);
    // Its icon is served from the same route, so that the browser's request for one is answered.
    expect(page.text).toContain('<link rel="icon" type="image/svg+xml" href="console?asset=icon.svg">');
    const icon = await api.get('/console?asset=icon.svg', { key: null });
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);

    await tab.page.goto(`${baseUrl}/console`);
    await tab.page.getByLabel('API key').fill('trb_key_wrongwrongwrongwrongwrongwrongwrong');
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await waitForText(tab.page.getByRole('alert'), /^UNAUTHORIZED: /);
    await checkAccessibility(tab.page, 'sign-in');
  });

  it('shows a tenant admin its connection, counts that move as webhooks arrive, and a wrong token as a rejection', async () => {
    const { page } = tab;
    await signIn(page, tenant.users.TenantAdmin.key);
    const stored = await page.evaluate(
      '({ session: Object.keys(sessionStorage), local: localStorage.length, cookie: document.cookie, url: location.href })',
    );
    expect(stored).toEqual({ session: ['tributary.apiKey'], local: 0, cookie: '', url: `${baseUrl}/console` });
    await waitForText(cell(row(page, hookName), 'Accepted'), /^0$/);

    for (const n of [1, 2, 3]) expect((await ingest(api, hook, `{"n":${n}}`)).status).toBe(202);
    await waitForText(cell(row(page, hookName), 'Accepted'), /^3$/);
    await waitForText(cell(row(page, hookName), 'Written'), /^3$/);
    await checkAccessibility(page, 'overview');

    // The traffic chart draws the history the API keeps, as soon as a page opens (not only what
    // arrived while it was open): a fresh load shows the three at once.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /^Overview/ }).waitFor();
    await waitForText(
      page.locator('.chart-summary'),
      /^Last 24 hours, per 15 minutes \(UTC\): 3 accepted, 3 written, 0 rejected, 0 dead-lettered\.$/,
    );
    expect(await page.locator('svg.chart rect.accepted:not([height="0"])').count()).toBeGreaterThanOrEqual(1);
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await waitForText(page.locator('.chart-summary'), /^Last 7 days, per hour \(UTC\): 3 accepted, 3 written/);
    expect(await page.locator('svg.chart g').count()).toBe(168);

    expect((await ingest(api, { ...hook, token: 'trb_ing_wrong' }, '{"n":4}')).status).toBe(401);
    // The service busy for a moment: the connection's failed deliveries are answered 503 with
    // Retry-After twice. The view asks again and shows the list, never the 503 as an error.
    let busyAnswers = 0;
    const failedDeliveries = /\/api\/connections\/[^/?]+\/failed-deliveries/;
    await page.route(failedDeliveries, async (route) => {
      if (busyAnswers >= 2) return route.continue();
      busyAnswers++;
      return route.fulfill({
        status: 503,
        headers: { 'retry-after': '1', 'content-type': 'application/json' },
        body: JSON.stringify({
          code: 'SERVICE_UNAVAILABLE',
          message: 'The service is busy',
          details: null,
          request_id: 'r',
        }),
      });
    });
    await page.evaluate(`(() => {
      window.busyShown = false;
      new MutationObserver(() => {
        if (document.body.textContent.includes('SERVICE_UNAVAILABLE')) window.busyShown = true;
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    })()`);
    await page.getByRole('link', { name: hookName }).click();
    await page.getByRole('heading', { level: 1, name: `Connection ${hookName}` }).waitFor();
    await waitForText(page.locator('td.empty'), /^No failed deliveries$/);
    expect({ busyAnswers, shown: await page.evaluate('window.busyShown') }).toEqual({ busyAnswers: 2, shown: false });
    await page.unroute(failedDeliveries);
    await waitForText(
      page.locator('.chart-summary'),
      /^Last 24 hours, per 15 minutes \(UTC\): 3 accepted, 3 written, 1 rejected, 0 dead-lettered\.$/,
    );
    expect(await page.locator('svg.chart g').count()).toBe(96);
    await waitForText(cell(page.getByRole('table', { name: /refused requests/ }), 'Code'), /^UNAUTHORIZED$/);
    expect(await page.locator('#curl').textContent()).toContain(`${baseUrl}/api/ingest/${hook.sourceId}`);

    await page.getByRole('button', { name: 'Pause source' }).click();
    await waitForText(page.locator('dl.facts dd'), /source Paused/);
    expect((await ingest(api, hook, '{"n":5}')).body).toMatchObject({ code: 'SOURCE_PAUSED' });
    await page.getByRole('button', { name: 'Resume source' }).click();
    await waitForText(page.locator('dl.facts dd'), /source Active/);
    await checkAccessibility(page, 'connection');
    expect(tab.problems).toEqual([]);
  });

  it('shows how other engines read the data set, with coordinates the Iceberg catalog answers to', async () => {
    const { page } = tab;
    await page.goto(`${baseUrl}/console`);
    await page.getByRole('heading', { level: 1, name: /^Overview/ }).waitFor();
    await page.getByRole('link', { name: hookName }).click();
    await page.getByRole('heading', { level: 1, name: `Connection ${hookName}` }).waitFor();
    const slug = (await api.get<{ slug: string }>(`/api/tenants/${tenant.tenantId}`)).body.slug;
    await waitForText(page.locator('#lake-table'), new RegExp(`^${hook.dataSetId}$`));
    const shown = {
      uri: await page.locator('#lake-catalog-uri').textContent(),
      namespace: await page.locator('#lake-namespace').textContent(),
      table: await page.locator('#lake-table').textContent(),
    };
    expect(shown).toEqual({ uri: `${baseUrl}/iceberg`, namespace: slug, table: hook.dataSetId });
    const lake = page.getByRole('region', { name: 'Read it with other engines' });
    expect(await lake.locator('figure', { hasText: 'Spark' }).locator('code').textContent()).toContain(
      `spark.sql.catalog.tributary.uri=${baseUrl}/iceberg`,
    );
    // The page never shows the session's key in a snippet, only a placeholder.
    expect(await lake.textContent()).not.toContain(tenant.users.TenantAdmin.key);
    // What the page shows is what a client of the catalog (not the console's code) finds there.
    const catalog = new IcebergRestCatalog({
      baseUrl: shown.uri ?? '',
      auth: { type: 'bearer', token: tenant.users.TenantViewer.key },
    });
    expect((await catalog.listTables({ namespace: [shown.namespace ?? ''] })).identifiers).toContainEqual({
      namespace: [slug],
      name: shown.table,
    });
    await checkAccessibility(page, 'connection');
    expect(tab.problems).toEqual([]);
  });

  it('finds an event by message id and shows its body as text: a <script> in it runs nothing', async () => {
    const { page } = tab;
    const hostile = '<script>window.__ran = 1</script><img src=x onerror="window.__ran = 2">';
    const scriptId = (await ingest(api, hook, hostile, { 'content-type': 'text/html' })).body.message_id;
    const jsonId = (await ingest(api, hook, '{"action":"opened","number":7}', { 'content-type': 'application/json' }))
      .body.message_id;
    await waitForRows(api, hook.dataSetId, 5);

    await page.getByRole('link', { name: /^Events/ }).click();
    await page.getByRole('heading', { level: 1, name: `Events of ${hookName}` }).waitFor();
    await waitForText(page.locator('ol.events summary').first(), new RegExp(jsonId));
    expect(await page.locator('ol.events > li').count()).toBe(5);

    await page.getByLabel('Message id').fill(scriptId);
    await page.getByRole('button', { name: 'Find' }).click();
    await waitForText(page.locator('ol.events summary'), new RegExp(scriptId));
    expect(await page.locator('ol.events pre').textContent()).toBe(hostile);
    expect(await page.evaluate('typeof window.__ran')).toBe('undefined');
    expect(await page.locator('main img, main script').count()).toBe(0);

    await page.getByLabel('Message id').fill(jsonId);
    await page.getByRole('button', { name: 'Find' }).click();
    await waitForText(page.locator('ol.events summary'), new RegExp(jsonId));
    expect(await page.locator('ol.events pre').textContent()).toBe('{\n  "action": "opened",\n  "number": 7\n}');
    await checkAccessibility(page, 'events');

    await page.getByLabel('Message id').fill('not-a-message-id');
    await page.getByRole('button', { name: 'Find' }).click();
    await waitForText(page.getByRole('alert'), /^VALIDATION_ERROR: The query string is not valid/);
    expect(tab.problems).toEqual([]);
  });

  it('searches the bodies of events for text or a JSON value and says how far it looked', async () => {
    const { page } = tab;
    const xmlId = (
      await ingest(api, hook, '<order id="in_123"><city>Zürich</city></order>', { 'content-type': 'application/xml' })
    ).body.message_id;
    await waitForRows(api, hook.dataSetId, 6);
    await page.getByRole('button', { name: 'Latest' }).click();
    await waitForText(page.locator('ol.events summary').first(), new RegExp(xmlId));

    await page.getByLabel('Body contains').fill('Zürich');
    await page.getByRole('button', { name: 'Find' }).click();
    await waitForText(
      page.locator('#events-summary'),
      /^1 matching event, newest first\. Looked at 6 events in \d+ files? .*: the whole range\.$/,
    );
    expect(await page.locator('ol.events summary').allTextContents()).toEqual([expect.stringContaining(xmlId)]);
    await checkAccessibility(page, 'events-search');

    await page.getByLabel('Body contains').fill('');
    await page.getByLabel('JSON path').fill('$.number');
    await page.getByLabel('equals').fill('7');
    await page.getByRole('button', { name: 'Find' }).click();
    await waitForText(page.locator('#events-summary'), /^1 matching event/);
    expect(await page.locator('ol.events pre').textContent()).toBe('{\n  "action": "opened",\n  "number": 7\n}');

    await page.getByLabel('JSON path').fill('');
    await page.getByLabel('Body contains').fill('nothing sent says this');
    await page.getByRole('button', { name: 'Find' }).click();
    await waitForText(page.locator('#events-summary'), /^0 matching events/);
    expect(tab.problems).toEqual([]);
  });

  it('lists the tenant’s pipelines and jobs', async () => {
    const { page } = tab;
    const name = unique('pipeline');
    const created = await api.post('/api/pipelines', {
      json: {
        tenant_id: tenant.tenantId,
        name,
        definition: {
          source: { data_set_id: hook.dataSetId },
          decode: { format: 'json' },
          columns: [{ name: 'n', path: '$.n', type: 'long' }],
          output: { name },
        },
      },
    });
    expect(created.status).toBe(201);
    await page.getByRole('link', { name: 'Pipelines and jobs' }).click();
    await waitForText(
      page.getByRole('table', { name: 'Pipelines' }).locator('tr'),
      new RegExp(`${name}.*not deployed`),
    );
    await checkAccessibility(page, 'pipelines');

    // Never deployed: a run is refused, and the page says so in plain words (with the API's own).
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { level: 1, name: `Pipeline ${name}` }).waitFor();
    expect(await page.locator('#pipeline-deployed').textContent()).toBe('none: not deployed yet');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await waitForText(
      page.getByRole('alert'),
      /^This pipeline has no deployed version yet, so there is nothing to run: deploy it first \(“Save and deploy”\)\.PIPELINE_NOT_DEPLOYED: The pipeline has no deployed version; deploy it first/,
    );
    await checkAccessibility(page, 'pipeline-not-deployed');
    await page.getByRole('link', { name: '← pipelines and jobs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Pipelines and jobs' }).waitFor();
    expect(tab.problems).toEqual([]);
  });

  it('builds a pipeline from suggested columns, previews its rows, and deploys it', async () => {
    const { page } = tab;
    const orders = await createWebhook(api, { tenantId: tenant.tenantId });
    for (const body of [
      '<order id="7"><total currency="EUR">7.50</total><paid>true</paid></order>',
      '<order id="8"><total currency="USD">12</total><paid>false</paid></order>',
      '<order id="x"><total currency="EUR">1</total><paid>true</paid></order>',
    ])
      expect((await ingest(api, orders, body, { 'content-type': 'application/xml' })).status).toBe(202);
    await waitForRows(api, orders.dataSetId, 3);
    const name = unique('orders');

    await page.getByRole('link', { name: 'New pipeline' }).click();
    await page.getByRole('heading', { level: 1, name: 'New pipeline' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Source data set').selectOption(orders.dataSetId);
    await page.getByLabel('Decode as').selectOption('xml');
    await page.getByRole('button', { name: 'Suggest columns' }).click();
    await waitForText(page.locator('.notice'), /^Suggested 4 columns from 3 rows of the 3 newest payloads \(3 xml\)/);
    const paths = await Promise.all([1, 2, 3, 4].map((n) => page.getByLabel(`Path of column ${n}`).inputValue()));
    expect(paths).toEqual(['$.order["@id"]', '$.order.total["@currency"]', '$.order.total["#text"]', '$.order.paid']);
    // The third order's id is not a number: the suggestion makes id a string; the editor makes it a long.
    expect(await page.getByLabel('Type of column 1').inputValue()).toBe('string');
    await page.getByLabel('Type of column 1').selectOption('long');
    await page.getByLabel('Use column 2').uncheck();
    await page.getByLabel('Path', { exact: true }).fill('$.order.paid');
    await page.getByLabel('Equals').fill('true');
    await page.getByLabel('Output table name').fill(name);
    await checkAccessibility(page, 'pipeline-editor-suggested');

    await page.getByRole('button', { name: 'Preview' }).click();
    await waitForText(page.locator('#preview-counts'), /^Rows in 3, out 1, rejected 1, filtered out 1\.$/);
    const preview = page.getByRole('table', { name: 'Preview' });
    expect(await preview.locator('thead th').allTextContents()).toEqual(['dt', 'id', 'total', 'paid']);
    expect(await preview.locator('tbody td:not([data-label="dt"])').allTextContents()).toEqual(['7', '7.5', 'true']);
    await waitForText(
      page.getByRole('table', { name: /Rejected rows/ }).locator('td'),
      /^column id: "x" is not a long$/,
    );
    await checkAccessibility(page, 'pipeline-editor-preview');

    // A double click saves once: one pipeline of this name, not two.
    await page.getByRole('button', { name: 'Save and deploy' }).dblclick();
    await waitForText(page.locator('.notice'), /^Saved and deployed\.$/);
    const named = (
      await api.get<{ pipelines: { name: string }[] }>(`/api/pipelines?tenant_id=${tenant.tenantId}&limit=100`)
    ).body.pipelines.filter((pipeline) => pipeline.name === name);
    expect(named).toHaveLength(1);
    // Saved, the page is the pipeline's: its name heads it, with its state and what to do with it.
    await page.getByRole('heading', { level: 1, name: `Pipeline ${name}` }).waitFor();
    expect(await page.getByRole('heading', { level: 1, name: 'New pipeline' }).count()).toBe(0);
    await waitForText(page.locator('#pipeline-deployed'), /^1, at \d{4}-\d{2}-\d{2} /);
    expect(await page.locator('#pipeline-status').textContent()).toBe('Active');

    // Disabled, a run is refused in plain words; enabled again, it runs, and the new job is linked.
    await page.getByRole('button', { name: 'Disable' }).click();
    await waitForText(page.locator('#pipeline-status'), /^Disabled$/);
    await waitForText(page.locator('.notice'), /^Disabled: it does not run/);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await waitForText(
      page.getByRole('alert'),
      /^This pipeline is disabled, so it does not run: enable it first\.PIPELINE_DISABLED: The pipeline is disabled/,
    );
    await checkAccessibility(page, 'pipeline-disabled');
    await page.getByRole('button', { name: 'Enable' }).click();
    await waitForText(page.locator('#pipeline-status'), /^Active$/);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await waitForText(page.locator('.notice'), /^Run started: job [0-9a-f]{8}\.$/);
    expect(await page.getByRole('alert').count()).toBe(0);
    const jobId = ((await page.locator('#started-job').getAttribute('href')) ?? '').replace('#/jobs/', '');
    await page.locator('#started-job').click();
    await page.getByRole('heading', { level: 1, name: `Job ${jobId.slice(0, 8)}` }).waitFor();
    // Of the three orders, the one unpaid is filtered out and the one whose id is not a number rejected.
    await waitForText(page.locator('#job-status'), /^Succeeded$/, 90_000);
    expect(await page.locator('#job-rows-in').textContent()).toBe('3');
    expect(await page.locator('#job-rows-out').textContent()).toBe('1');
    expect((await api.get<{ status: string; rows_out: number }>(`/api/jobs/${jobId}`)).body).toMatchObject({
      status: 'Succeeded',
      rows_out: 1,
    });
    await checkAccessibility(page, 'job');
    const listed = await api.get<{ pipelines: { name: string; deployed_version: number; definition: unknown }[] }>(
      `/api/pipelines?tenant_id=${tenant.tenantId}`,
    );
    expect(listed.body.pipelines.find((pipeline) => pipeline.name === name)).toMatchObject({
      deployed_version: 1,
      definition: {
        source: { data_set_id: orders.dataSetId },
        decode: { format: 'xml' },
        where: { path: '$.order.paid', equals: true },
        columns: [
          { name: 'id', path: '$.order["@id"]', type: 'long' },
          { name: 'total', path: '$.order.total["#text"]', type: 'double' },
          { name: 'paid', path: '$.order.paid', type: 'boolean' },
        ],
        output: { name },
      },
    });
    expect(tab.problems).toEqual([]);
  });

  it('lists an accepted event as pending, with the staged rows in the figures, until its table commits it', async () => {
    const { page } = tab;
    const slow = await createWebhook(api, { tenantId: tenant.tenantId });
    const slowName = (await api.get<{ name: string }>(`/api/connections/${slow.connectionId}`)).body.name;
    // The suite's service commits each batch as it arrives (TABLE_FRESHNESS_SECONDS=0): this table's own
    // target makes its rows wait, for as long as the scene needs.
    await setFreshness(slow.dataSetId, 'interval 1 hour');
    const first = (await ingest(api, slow, '{"order":1}', { 'content-type': 'application/json' })).body.message_id;
    const second = (await ingest(api, slow, '{"order":2}', { 'content-type': 'application/json' })).body.message_id;

    await page.goto(`${baseUrl}/console#/connections/${slow.connectionId}`);
    await page.getByRole('heading', { level: 1, name: `Connection ${slowName}` }).waitFor();
    await waitForText(cell(figures(page), staged), /^2$/);
    expect(await cell(figures(page), 'Accepted').textContent()).toBe('2');
    expect(await cell(figures(page), 'Written').textContent()).toBe('0');
    expect(await cell(figures(page), 'Oldest staged').textContent()).toMatch(/^\d+ s$/);
    // The freshness target is asked for apart from the figures: it may show after them.
    await waitForText(page.locator('#freshness-target'), /^60 min \(set on this table: interval 1 hour\)$/);
    expect(await page.getByRole('alert').count()).toBe(0);
    await checkAccessibility(page, 'connection-staged');

    await page.getByRole('link', { name: /^Events/ }).click();
    await page.getByRole('heading', { level: 1, name: `Events of ${slowName}` }).waitFor();
    await waitForText(
      page.locator('#events-summary'),
      /^2 events, newest first, 2 pending \(read \d+ files? this time\)\.$/,
    );
    const summaries = page.locator('ol.events summary');
    expect(await summaries.allTextContents()).toEqual([
      expect.stringMatching(new RegExp(`^${second} Pending · `)),
      expect.stringMatching(new RegExp(`^${first} Pending · `)),
    ]);
    await summaries.nth(1).click();
    expect(await page.locator('ol.events details[open] .pending-note').textContent()).toBe(
      'Pending: accepted and staged, kept safe but not in the data set’s table yet. It is committed to the table within the table’s freshness target (60 min) of its arrival; this list marks it committed then.',
    );
    expect(await page.locator('ol.events details[open] pre').textContent()).toBe('{\n  "order": 1\n}');
    await checkAccessibility(page, 'events-pending');

    // Act: the table's target becomes a few seconds, so its next commit pass commits both. The list
    // stays open and is not asked again: it follows the pending events by itself.
    await setFreshness(slow.dataSetId, 'interval 2 seconds');
    await waitForText(
      page.locator('#events-summary'),
      /^2 events, newest first \(read \d+ files? this time\)\.$/,
      90_000,
    );
    expect(await summaries.allTextContents()).toEqual([
      expect.stringMatching(new RegExp(`^${second} Committed · `)),
      expect.stringMatching(new RegExp(`^${first} Committed · `)),
    ]);
    expect(await page.locator('ol.events details[open] pre').textContent()).toBe('{\n  "order": 1\n}');
    expect(await page.locator('ol.events .pending-note').count()).toBe(0);
    await checkAccessibility(page, 'events-committed');

    // Assess with a reader we did not write: both rows are in the table, once each.
    const table = await readEnvelopeTable(await waitForRows(api, slow.dataSetId, 2));
    expect(table.rows.map((stored) => stored.message_id).sort()).toEqual([first, second].sort());
    await page.getByRole('link', { name: '← the connection' }).click();
    await waitForText(cell(figures(page), 'Written'), /^2$/);
    expect(await cell(figures(page), staged).textContent()).toBe('0');
    expect(await cell(figures(page), 'Oldest staged').textContent()).toBe('—');
    expect(tab.problems).toEqual([]);
  }, 150_000);

  it('accounts for every accepted request in terms that add up, draws the traffic across the page with dated times, and picks no provider unasked', async () => {
    const { page } = tab;
    const repeated = await createWebhook(api, { tenantId: tenant.tenantId });
    const repeatedName = (await api.get<{ name: string }>(`/api/connections/${repeated.connectionId}`)).body.name;
    const deduplicating = await api.put(`/api/connections/${repeated.connectionId}/security`, {
      json: { auth_mode: 'bearer', dedup_window_seconds: 3600, rate_limit: null, ip_allowlist: null, signature: null },
    });
    expect(deduplicating.status, deduplicating.text).toBe(200);
    // A sender's retry: the same request twice, both answered 202, one row.
    const headers = { 'content-type': 'application/json', 'idempotency-key': 'order-1' };
    const first = await ingest(api, repeated, '{"a":1}', headers);
    const retry = await ingest(api, repeated, '{"a":1}', headers);
    expect([first.status, retry.status]).toEqual([202, 202]);
    expect(retry.body.message_id).toBe(first.body.message_id);
    await waitForRows(api, repeated.dataSetId, 1);

    await page.goto(`${baseUrl}/console#/connections/${repeated.connectionId}`);
    await page.getByRole('heading', { level: 1, name: `Connection ${repeatedName}` }).waitFor();
    await waitForText(cell(figures(page), 'Accepted'), /^2$/);
    await waitForText(cell(figures(page), 'Duplicates'), /^1$/);
    expect(await cell(figures(page), 'Written').textContent()).toBe('1');
    expect(await cell(figures(page), staged).textContent()).toBe('0');
    expect(await cell(figures(page), 'Lost').textContent()).toBe('0');
    // Where the two accepted are: written 1 + duplicates 1, nothing waiting, nothing lost.
    const account = Object.fromEntries(
      await Promise.all(
        ['accepted', 'written', 'duplicates', 'staged', 'queued', 'failed', 'expired', 'lost'].map(
          async (term) => [term, await page.locator(`#account-${term}`).textContent()] as const,
        ),
      ),
    );
    expect(account).toEqual({
      accepted: '2',
      written: '1',
      duplicates: '1',
      staged: '0',
      queued: '0',
      failed: '0 (0 dead-lettered, 0 redriven)',
      expired: '0',
      lost: '0',
    });

    // No provider is picked for a connection that has none: the bearer token is what it checks.
    const provider = page.getByLabel('Provider', { exact: true });
    expect(await provider.inputValue()).toBe('');
    expect(await provider.locator('option:checked').textContent()).toBe('None: the bearer token only');
    expect(await page.getByLabel('Signing secret').isVisible()).toBe(false);
    expect(await page.getByRole('form', { name: 'Point a provider at this connection' }).textContent()).toContain(
      'Authorization: Bearer',
    );

    // The chart takes the width it is given, and its axis says when: every 3 hours over a day (the
    // date at midnight), every day over a week, the last of them today (UTC).
    const today = new Date().toISOString().slice(5, 10);
    const chart = page.locator('svg.chart');
    await waitForText(page.locator('.chart-summary'), /^Last 24 hours, per 15 minutes \(UTC\): 2 accepted, 1 written/);
    // Measured in one go: the chart is drawn anew at each poll.
    const [chartWidth, figureWidth] = (await page.evaluate(
      "[document.querySelector('svg.chart'), document.querySelector('figure.chart-figure')].map((node) => node.getBoundingClientRect().width)",
    )) as number[];
    expect(chartWidth).toBeGreaterThanOrEqual((figureWidth ?? Number.POSITIVE_INFINITY) - 1);
    const hours = await chart.locator('text.tick').allTextContents();
    expect(hours).toHaveLength(8);
    for (const label of hours) expect(label).toMatch(/^(\d{2}-\d{2} )?(00|03|06|09|12|15|18|21):00$/);
    expect(hours.filter((label) => label.includes('-'))).toEqual([`${today} 00:00`]);
    await page.getByRole('button', { name: 'Last 7 days' }).click();
    await waitForText(page.locator('.chart-summary'), /^Last 7 days, per hour \(UTC\): 2 accepted/);
    const days = await chart.locator('text.tick').allTextContents();
    expect(days).toHaveLength(7);
    for (const label of days) expect(label).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{2}-\d{2}$/);
    expect(days.at(-1)).toMatch(new RegExp(`${today}$`));
    await checkAccessibility(page, 'connection-duplicates');

    // A count of one reads in the singular.
    await page.goto(`${baseUrl}/console#/pipelines/new`);
    await page.getByLabel('Source data set').selectOption(repeated.dataSetId);
    await page.getByLabel('Decode as').selectOption('json');
    await page.getByRole('button', { name: 'Suggest columns' }).click();
    await waitForText(
      page.locator('.notice'),
      /^Suggested 1 column from 1 row of the newest payload \(1 json\); 0 did not decode\.$/,
    );
    expect(tab.problems).toEqual([]);
  });

  it('ends a view’s requests when the operator leaves it, even one left while it still loads', async () => {
    const { page } = tab;
    const connectionPath = `/api/connections/${hook.connectionId}`;
    // Asked only by the connection's own page (the overview asks for the tenant's figures, not its rejections).
    const ofConnectionView: string[] = [];
    const overviewPolls: string[] = [];
    const listen = (request: Request) => {
      const { pathname } = new URL(request.url());
      if (pathname === `${connectionPath}/rejections`) ofConnectionView.push(pathname);
      if (pathname === `/api/tenants/${tenant.tenantId}/stats`) overviewPolls.push(pathname);
    };
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The connection's page loads until released: its security settings do not answer before.
    await page.route(`**${connectionPath}/security`, async (route) => {
      await held;
      await route.continue().catch(() => {}); // the page may have abandoned it
    });
    page.on('request', listen);
    try {
      const asked = page.waitForRequest((request) => request.url().endsWith(`${connectionPath}/security`));
      await page.goto(`${baseUrl}/console#/connections/${hook.connectionId}`);
      await asked;
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: /^Overview/ }).waitFor();
      release();
      // Three polls of the overview later, the page it left has asked nothing.
      const before = overviewPolls.length;
      await expect.poll(() => overviewPolls.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(before + 3);
      expect(ofConnectionView).toEqual([]);

      // A page left once loaded stops as well.
      await page.getByRole('link', { name: hookName }).click();
      await page.getByRole('heading', { level: 1, name: `Connection ${hookName}` }).waitFor();
      await expect.poll(() => ofConnectionView.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      await page.getByRole('link', { name: 'Overview', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: /^Overview/ }).waitFor();
      const left = ofConnectionView.length;
      const polled = overviewPolls.length;
      await expect.poll(() => overviewPolls.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(polled + 3);
      expect(ofConnectionView).toHaveLength(left);
      expect(tab.problems).toEqual([]);
    } finally {
      page.off('request', listen);
      release();
      await page.unroute(`**${connectionPath}/security`);
    }
  });

  it('lets a tenant admin set the freshness target, in the API’s words when refused; a viewer only sees it', async () => {
    const { page } = tab;
    const tuned = await createWebhook(api, { tenantId: tenant.tenantId });
    const tunedName = (await api.get<{ name: string }>(`/api/connections/${tuned.connectionId}`)).body.name;
    await page.goto(`${baseUrl}/console#/connections/${tuned.connectionId}`);
    await page.getByRole('heading', { level: 1, name: `Connection ${tunedName}` }).waitFor();
    // Nothing committed yet: the deployment's default (the suite's 0).
    await waitForText(
      page.locator('#freshness-target'),
      /^0 s: each batch is committed as it arrives \(the deployment’s default\)$/,
    );

    await page.getByLabel('New target').fill('25');
    await page.getByLabel('Unit of the freshness target').selectOption('hours');
    await page.getByRole('button', { name: 'Set target' }).click();
    const refused = page.getByRole('alert');
    await waitForText(refused, /^VALIDATION_ERROR: Invalid table properties/);
    expect(await refused.locator('li').allTextContents()).toEqual([
      'properties.tributary.freshness: Out of range or unreadable: interval 25 hours',
    ]);
    await checkAccessibility(page, 'connection-freshness-refused');

    await page.getByLabel('New target').fill('10');
    await page.getByLabel('Unit of the freshness target').selectOption('minutes');
    await page.getByRole('button', { name: 'Set target' }).click();
    await waitForText(page.locator('.notice'), /^Freshness target set to 10 min\.$/);
    expect(await page.locator('#freshness-target').textContent()).toBe(
      '10 min (set on this table: interval 10 minutes)',
    );
    expect(await page.getByRole('alert').count()).toBe(0);
    await checkAccessibility(page, 'connection-freshness-set');
    // Assess in the table's own log, as any Delta reader sees it.
    const location = (await api.get<{ storage_location: string }>(`/api/data-sets/${tuned.dataSetId}`)).body
      .storage_location;
    expect((await tableConfiguration(location))['tributary.freshness']).toBe('interval 10 minutes');

    const viewer = await openTab();
    try {
      await signIn(viewer.page, tenant.users.TenantViewer.key);
      await viewer.page.getByRole('link', { name: tunedName }).click();
      await waitForText(
        viewer.page.locator('#freshness-target'),
        /^10 min \(set on this table: interval 10 minutes\)$/,
      );
      expect(await viewer.page.getByLabel('New target').count()).toBe(0);
      expect(await viewer.page.getByRole('button', { name: /Set target|default/ }).count()).toBe(0);
      await checkAccessibility(viewer.page, 'connection-freshness-viewer');
      expect(viewer.problems).toEqual([]);
    } finally {
      await viewer.context.close();
    }

    await page.getByRole('button', { name: 'Use the deployment’s default' }).click();
    await waitForText(
      page.locator('#freshness-target'),
      /^0 s: each batch is committed as it arrives \(the deployment’s default\)$/,
    );
    expect(await tableConfiguration(location)).not.toHaveProperty('tributary.freshness');
    expect(tab.problems).toEqual([]);
  });

  it('lets a tenant admin point a provider at a connection: what to paste where, the provider’s secret taken, a generated one shown once', async () => {
    const { page } = tab;
    const pointed = await createWebhook(api, { tenantId: tenant.tenantId });
    const pointedName = (await api.get<{ name: string }>(`/api/connections/${pointed.connectionId}`)).body.name;
    await page.goto(`${baseUrl}/console#/connections/${pointed.connectionId}`);
    await page.getByRole('heading', { level: 1, name: `Connection ${pointedName}` }).waitFor();
    const form = page.getByRole('form', { name: 'Point a provider at this connection' });
    await page.getByLabel('Provider', { exact: true }).selectOption('slack');
    const facts = form.locator('dl.facts');
    expect(await facts.locator('dd').first().textContent()).toBe(`${baseUrl}/api/ingest/${pointed.sourceId}`);
    expect(await facts.textContent()).toContain(
      'x-slack-signature: v0=hex HMAC-SHA256 of "v0:" + timestamp + ":" + body',
    );
    expect(await facts.textContent()).toContain('body /event_id');
    expect(await page.getByLabel('Public key').isVisible()).toBe(false);

    // Slack issues the secret: saving without it is refused in the API's words, and changes nothing.
    await page.getByRole('button', { name: 'Use this provider' }).click();
    await waitForText(page.getByRole('alert'), /^VALIDATION_ERROR: Slack \(Events API\) issues the signing secret/);
    await checkAccessibility(page, 'connection-senders-refused');
    const slackSecret = 'slack-signing-secret-0123456789ab';
    await page.getByLabel('Signing secret').fill(slackSecret);
    await page.getByRole('button', { name: 'Use this provider' }).click();
    await waitForText(page.locator('.notice'), /^Senders now sign as Slack \(Events API\)\.$/);
    await waitForText(page.locator('#signature-scheme'), /^slack, tolerance 300 s$/);
    // Its bearer token alone is refused now, and "Try it" no longer offers a curl that sends only that.
    await waitForText(
      page.locator('#try-signed'),
      /^This connection takes only requests signed as slack, so a curl with the bearer token alone is refused \(401\)\./,
    );
    expect(await page.locator('#curl').count()).toBe(0);
    expect((await ingest(api, pointed, '{"n":1}')).status).toBe(401);
    const at = String(Math.floor(Date.now() / 1000));
    const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev1' });
    const slackSigned = await api.post(`/api/ingest/${pointed.sourceId}`, {
      key: null,
      raw: event,
      headers: {
        'x-slack-request-timestamp': at,
        'x-slack-signature': `v0=${createHmac('sha256', slackSecret).update(`v0:${at}:${event}`).digest('hex')}`,
      },
    });
    expect(slackSigned.status).toBe(202);

    // Settings the form does not show, set through the API, stay as they are when the same provider is saved again.
    const security = (await api.get<Record<string, unknown>>(`/api/connections/${pointed.connectionId}/security`)).body;
    expect(
      (
        await api.put(`/api/connections/${pointed.connectionId}/security`, {
          json: {
            ...security,
            auth_mode: 'bearer_and_signature',
            signature: { scheme: 'slack', tolerance_seconds: 3600 },
          },
        })
      ).status,
    ).toBe(200);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: `Connection ${pointedName}` }).waitFor();
    await page.getByRole('button', { name: 'Use this provider' }).click();
    await waitForText(page.locator('.notice'), /^Senders now sign as Slack \(Events API\)\.$/);
    expect(
      (await api.get<Record<string, unknown>>(`/api/connections/${pointed.connectionId}/security`)).body,
    ).toMatchObject({
      auth_mode: 'bearer_and_signature',
      signature: { scheme: 'slack', tolerance_seconds: 3600 },
      dedup_window_seconds: 0,
    });
    await api.put(`/api/connections/${pointed.connectionId}/security`, {
      json: { ...security, auth_mode: 'signature', signature: { scheme: 'slack' } },
    });
    await page.reload();
    await page.getByRole('heading', { level: 1, name: `Connection ${pointedName}` }).waitFor();

    // GitHub takes a secret of the tenant's choosing: none given, one is generated and shown this once.
    await page.getByLabel('Provider', { exact: true }).selectOption('github');
    await page.getByRole('button', { name: 'Use this provider' }).click();
    await waitForText(page.locator('#sender-signing-secret'), /^[A-Za-z0-9_-]{43}$/);
    const generated = (await page.locator('#sender-signing-secret').textContent()) as string;
    await checkAccessibility(page, 'connection-senders');
    const pushed = await api.post(`/api/ingest/${pointed.sourceId}`, {
      key: null,
      raw: '{"zen":"Design for failure."}',
      headers: {
        'x-hub-signature-256': `sha256=${createHmac('sha256', generated).update('{"zen":"Design for failure."}').digest('hex')}`,
      },
    });
    expect(pushed.status).toBe(202);
    expect((await api.get(`/api/connections/${pointed.connectionId}/security`)).text).not.toContain(generated);
    expect(tab.problems).toEqual([]);
  });

  it('shows a failing commit prominently, with its last error, until the store recovers and the rows are written', async () => {
    const proxy = await startFaultProxy(inject('runtimeEnv').AWS_ENDPOINT_URL_S3 as string);
    const admin = await openTab();
    const overview = await openTab();
    try {
      const flaky = await createWebhook(api, { store: { endpoint: proxy.url } });
      const flakyName = (await api.get<{ name: string }>(`/api/connections/${flaky.connectionId}`)).body.name;
      const key = (await createUser(api, flaky.tenantId, 'TenantAdmin')).key;
      // The table is due a few seconds after each envelope.
      await setFreshness(flaky.dataSetId, 'interval 3 seconds');
      await signIn(admin.page, key);
      await signIn(overview.page, key);
      await admin.page.getByRole('link', { name: flakyName }).click();
      await waitForText(admin.page.locator('#freshness-target'), /^3 s \(set on this table: interval 3 seconds\)$/);

      // Act: the store refuses the table's data files (its log still answers, as a store refusing some
      // writes would), and an envelope arrives.
      const dataFiles = (request: { url?: string }) => !request.url?.includes('/_delta_log/');
      proxy.failWhen(dataFiles);
      const sentId = (await ingest(api, flaky, '{"n":1}')).body.message_id;
      const alert = admin.page.getByRole('alert');
      await waitForText(alert, /^Commits to the table are failing: attempt [1-4] of 5 failed\./, 60_000);
      // Later attempts now wait on the store instead of failing: the failure stays as shown while it is checked.
      proxy.holdWhen(dataFiles);
      proxy.failWhen(null);
      await waitForText(
        overview.page.getByRole('alert'),
        new RegExp(`^A connection’s commits are failing${flakyName}: attempt [1-4] of 5 failed`),
      );
      expect(await alert.locator('code.last-error').textContent()).toMatch(/^[A-Z_]+/);
      expect(await alert.textContent()).toContain(
        '1 row accepted and staged waits for the table, kept safe, and is tried again shortly.',
      );
      await waitForText(cell(figures(admin.page), staged), /^1, commit failing$/);
      await waitForText(cell(row(overview.page, flakyName), staged), /^1, commit failing$/);
      await checkAccessibility(admin.page, 'connection-commit-failing');
      await checkAccessibility(overview.page, 'overview-commit-failing');

      // The store recovers: the waiting attempt goes through, and the warning goes.
      proxy.holdWhen(null);
      await waitForText(cell(figures(admin.page), 'Written'), /^1$/, 90_000);
      await waitForText(cell(figures(admin.page), staged), /^0$/);
      // Each view drops the warning at its next poll of the connection's state, which may come after its figures'.
      await expect.poll(() => alert.count(), { timeout: 30_000 }).toBe(0);
      await waitForText(cell(row(overview.page, flakyName), 'Written'), /^1$/);
      await expect.poll(() => overview.page.getByRole('alert').count(), { timeout: 30_000 }).toBe(0);
      const table = await readEnvelopeTable(await waitForRows(api, flaky.dataSetId, 1));
      expect(table.rows.map((stored) => stored.message_id)).toEqual([sentId]);
      expect(admin.problems).toEqual([]);
      expect(overview.problems).toEqual([]);
    } finally {
      proxy.holdWhen(null);
      proxy.failWhen(null);
      await admin.context.close();
      await overview.context.close();
      await proxy.close();
    }
  }, 180_000);

  it('lets an operator redrive failed deliveries once the store is fixed, and a viewer only look', async () => {
    const viewer = await createUser(api, failing.tenantId, 'TenantViewer');

    // The bootstrap key, as on a freshly started service.
    const admin = await openTab();
    try {
      await signIn(admin.page, inject('adminKey'));
      await checkAccessibility(admin.page, 'overview-platform');
      await admin.page.goto(`${baseUrl}/console#/tenants/${failing.tenantId}`);
      await row(admin.page, failingName).getByRole('link', { name: failingName }).click();
      const failed = admin.page.getByRole('table', { name: /write failed/ });
      await waitForText(failed.locator('th[data-label="Message id"]').nth(1), /./, 60_000);

      const look = await openTab();
      await signIn(look.page, viewer.key);
      // The overview says so above its table, however far down the connection is listed.
      await waitForText(
        look.page.getByRole('alert'),
        new RegExp(
          `^A connection has failed deliveries or lost rows${failingName}: \\d+ failed deliver(y waits|ies wait) for a redrive\\.$`,
        ),
      );
      await row(look.page, failingName).getByRole('link', { name: failingName }).click();
      await waitForText(
        look.page.getByRole('table', { name: /write failed/ }).locator('th[data-label="Message id"]'),
        /./,
      );
      expect(await look.page.getByRole('button', { name: /Redrive|Pause|Resume/ }).count()).toBe(0);
      expect(await look.page.getByRole('checkbox').count()).toBe(0);
      await checkAccessibility(look.page, 'connection-viewer');
      // A key that stops working sends the console back to the sign-in at its next call.
      const keys = await api.get<{ api_keys: { api_key_id: string }[] }>(`/api/users/${viewer.userId}/api-keys`);
      expect(
        (await api.delete(`/api/users/${viewer.userId}/api-keys/${keys.body.api_keys[0]?.api_key_id}`)).status,
      ).toBe(204);
      await waitForText(look.page.getByRole('button'), /^Sign in$/, 15_000);
      await waitForText(look.page.getByRole('alert'), /^UNAUTHORIZED: /);
      expect(look.problems).toEqual([]);
      await look.context.close();

      // Act: fix the store, then redrive one, then the rest, each confirmed.
      const stores = await api.get<{ object_stores: { object_store_id: string }[] }>(
        `/api/tenants/${failing.tenantId}/object-stores`,
      );
      const fixed = await api.post(`/api/tenants/${failing.tenantId}/update-object-store-options`, {
        json: {
          object_store_id: stores.body.object_stores[0]?.object_store_id,
          options: { endpoint: inject('runtimeEnv').AWS_ENDPOINT_URL_S3 },
        },
      });
      expect(fixed.status).toBeLessThan(300);
      // The dead-letter queue delivers at least once: a message may be listed (and counted) more than once.
      const records = (
        await api.get<{ failed_deliveries: { message_id: string }[] }>(
          `/api/connections/${failing.connectionId}/failed-deliveries`,
        )
      ).body.failed_deliveries;
      const ofFirst = records.filter((record) => record.message_id === sent[0]).length;
      await admin.page
        .getByRole('checkbox', { name: `Select ${sent[0]}` })
        .first()
        .check();
      await admin.page.getByRole('button', { name: 'Redrive selected' }).click();
      await checkAccessibility(admin.page, 'redrive-confirmation');
      await admin.page.getByRole('dialog').getByRole('button', { name: 'Redrive' }).click();
      await waitForText(admin.page.locator('.notice'), new RegExp(`^${ofFirst} redriven\\.$`));
      // The list is drawn again after the first redrive: a click on a button it replaced opens nothing.
      const dialog = admin.page.getByRole('dialog');
      await expect
        .poll(
          async () => {
            if (!(await dialog.isVisible())) await admin.page.getByRole('button', { name: 'Redrive all' }).click();
            return dialog.isVisible();
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBe(true);
      await dialog.getByRole('button', { name: 'Redrive' }).click();
      await waitForText(admin.page.locator('.notice'), new RegExp(`^${records.length - ofFirst} redriven\\.$`));

      // Assess: the page shows both written, and the table (read by DuckDB) holds each once.
      await waitForText(failed.locator('td'), /^No failed deliveries$/);
      await waitForText(cell(admin.page.getByRole('table', { name: /Since the connection/ }), 'Written'), /^2$/);
      await checkAccessibility(admin.page, 'connection-redriven');
      const table = await readEnvelopeTable(await waitForRows(api, failing.dataSetId, 2));
      expect(table.rows.map((stored) => stored.message_id).sort()).toEqual([...sent].sort());
      expect(admin.problems).toEqual([]);
    } finally {
      await admin.context.close();
    }
  }, 150_000);
});
