/**
 * `npm run bench decode`: what decoding costs a pipeline run, per format, in one process: rows per
 * second and MB per second through the compiled query (decode, filter, columns), over bodies as
 * senders post them; and how long a hostile XML body takes to be rejected.
 */
import { compileQuery } from '../shared/domain/pipelines/compile-query.ts';
import type { QuerySpecification } from '../shared/domain/pipelines/definition.ts';

interface Case {
  format: QuerySpecification['decode']['format'];
  bodies: Buffer[];
  contentType: string | null;
  columns: QuerySpecification['columns'];
  where?: QuerySpecification['where'];
}

const count = Number(process.env.BENCH_DECODE_BODIES ?? 20_000);
const repeat = <T>(make: (i: number) => T) => Array.from({ length: count }, (_, i) => make(i));
const padding = 'x'.repeat(600);

const cases: Record<string, Case> = {
  'json (GitHub-like, ~1 KB)': {
    format: 'json',
    contentType: 'application/json',
    bodies: repeat((i) =>
      Buffer.from(
        JSON.stringify({
          action: 'opened',
          number: i,
          pull_request: { title: padding, merged_at: '2026-11-21T10:00:00Z', user: { login: 'octo' } },
          labels: ['bug', 'p1'],
        }),
      ),
    ),
    columns: [
      { name: 'action', path: '$.action', type: 'string' },
      { name: 'number', path: '$.number', type: 'long' },
      { name: 'merged_at', path: '$.pull_request.merged_at', type: 'timestamp' },
      { name: 'login', path: '$.pull_request.user.login', type: 'string' },
    ],
  },
  'xml (an order, ~1 KB)': {
    format: 'xml',
    contentType: 'application/xml',
    bodies: repeat((i) =>
      Buffer.from(
        `<?xml version="1.0"?><order id="${i}"><total currency="EUR">7.50</total><note>${padding}</note>` +
          '<item sku="a"/><item sku="b"/><at>2026-11-21T10:00:00Z</at></order>',
      ),
    ),
    columns: [
      { name: 'id', path: '$.order["@id"]', type: 'long' },
      { name: 'total', path: '$.order.total["#text"]', type: 'double' },
      { name: 'currency', path: '$.order.total["@currency"]', type: 'string' },
      { name: 'at', path: '$.order.at', type: 'timestamp' },
    ],
  },
  'form (PayPal-like, ~1 KB)': {
    format: 'form',
    contentType: 'application/x-www-form-urlencoded',
    bodies: repeat((i) =>
      Buffer.from(`txn_id=${i}&payer=F7+%26+Co&mc_gross=7.25&payment_status=Completed&memo=${padding}`),
    ),
    columns: [
      { name: 'txn_id', path: '$.txn_id', type: 'long' },
      { name: 'payer', path: '$.payer', type: 'string' },
      { name: 'gross', path: '$.mc_gross', type: 'double' },
    ],
    where: { path: '$.payment_status', equals: 'Completed' },
  },
  'ndjson (10 lines of ~100 B)': {
    format: 'ndjson',
    contentType: 'application/x-ndjson',
    bodies: repeat((i) =>
      Buffer.from(
        Array.from({ length: 10 }, (_, line) =>
          JSON.stringify({ event: 'view', n: i * 10 + line, page: '/a/b/c' }),
        ).join('\n'),
      ),
    ),
    columns: [
      { name: 'event', path: '$.event', type: 'string' },
      { name: 'n', path: '$.n', type: 'long' },
    ],
  },
};

function run(testCase: Case) {
  const query = compileQuery({ decode: { format: testCase.format }, columns: testCase.columns, where: testCase.where });
  const bytes = testCase.bodies.reduce((sum, body) => sum + body.length, 0);
  let rows = 0;
  let rejected = 0;
  const started = process.hrtime.bigint();
  for (const body of testCase.bodies)
    for (const outcome of query(body, testCase.contentType)) {
      rows++;
      if ('rejected' in outcome) rejected++;
    }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rows, rejected, seconds, bytes };
}

function hostile(): { name: string; bytes: number; ms: number; reason: string }[] {
  const query = compileQuery({ decode: { format: 'xml' }, columns: [{ name: 'x', path: '$.r', type: 'string' }] });
  const laughs =
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
    Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
    ']><lolz>&lol9;</lolz>';
  const bodies: [string, string][] = [
    ['billion laughs', laughs],
    ['deep nesting (100,000 open elements)', '<a>'.repeat(100_000)],
    ['100,000 attributes on one element', `<r ${Array.from({ length: 100_000 }, (_, i) => `a${i}="1"`).join(' ')}/>`],
    ['150,000 empty elements', `<r>${'<i/>'.repeat(150_000)}</r>`],
  ];
  return bodies.map(([name, body]) => {
    const payload = Buffer.from(body);
    const started = process.hrtime.bigint();
    const [outcome] = query(payload, null);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return {
      name,
      bytes: payload.length,
      ms,
      reason: outcome && 'rejected' in outcome ? outcome.rejected : 'ACCEPTED',
    };
  });
}

export function benchDecode(): string[] {
  const lines = [
    `### Decoding: ${count.toLocaleString('en')} bodies per format through the compiled query (one core)`,
    '',
    '| format | rows | rows/s | MB/s | rejected |',
    '| --- | ---: | ---: | ---: | ---: |',
  ];
  for (const [name, testCase] of Object.entries(cases)) {
    run(testCase); // warm-up
    const result = run(testCase);
    lines.push(
      `| ${name} | ${result.rows.toLocaleString('en')} | ${Math.round(result.rows / result.seconds).toLocaleString('en')} | ${(result.bytes / 1024 / 1024 / result.seconds).toFixed(1)} | ${result.rejected} |`,
    );
  }
  lines.push('', '| hostile XML body | bytes | ms to reject | reason |', '| --- | ---: | ---: | --- |');
  for (const result of hostile())
    lines.push(
      `| ${result.name} | ${result.bytes.toLocaleString('en')} | ${result.ms.toFixed(1)} | ${result.reason} |`,
    );
  lines.push('');
  return lines;
}
