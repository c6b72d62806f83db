/**
 * The pipelines' decoders against literal bodies: each body, as senders post it, decoded with a
 * definition's format, filter and columns into the rows written out by hand below.
 */
import { describe, expect, it } from 'vitest';
import { compileQuery } from '#shared/domain/pipelines/compile-query.ts';
import type { ColumnDefinition, QuerySpecification } from '#shared/domain/pipelines/definition.ts';

type Format = QuerySpecification['decode']['format'];

function rowsOf(
  format: Format,
  columns: [string, string, ColumnDefinition['type']][],
  body: string | Uint8Array,
  contentType: string | null = null,
  where?: QuerySpecification['where'],
) {
  const query = compileQuery({
    decode: { format },
    columns: columns.map(([name, path, type]) => ({ name, path, type })),
    where,
  });
  return query(typeof body === 'string' ? Buffer.from(body, 'utf8') : body, contentType);
}

const text = (name: string, path: string): [string, string, 'string'] => [name, path, 'string'];

describe('JSON values as typed columns', () => {
  it('takes ISO 8601 text (UTC without an offset) and epoch numbers by size, and rejects the rest rather than guess', () => {
    const column: [string, string, ColumnDefinition['type']][] = [['t', '$.t', 'timestamp']];
    const at = (value: unknown) => rowsOf('json', column, JSON.stringify({ t: value }))[0];
    // 2026-11-21T10:00:00Z is 1795255200 seconds after 1970.
    const accepted: [unknown, bigint][] = [
      ['2026-11-21T10:00:00Z', 1795255200000000n],
      ['2026-11-21T10:00:00', 1795255200000000n],
      ['2026-11-21 10:00', 1795255200000000n],
      ['2026-11-21T12:00:00+02:00', 1795255200000000n],
      ['2026-11-21T04:30:00.123456789-0530', 1795255200123456n],
      ['2024-02-29', 1709164800000000n],
      ['0001-01-01T00:00:00Z', -62135596800000000n],
      [1795255200, 1795255200000000n],
      [1795255200.5, 1795255200500000n],
      [1795255200000, 1795255200000000n],
      [1795255200000000, 1795255200000000n],
      [1.7952552e18, 1795255200000000n],
      [-86400, -86400000000n],
    ];
    for (const [value, micros] of accepted)
      expect({ value, row: at(value) }).toEqual({ value, row: { cells: [micros] } });
    const rejected: [unknown, string][] = [
      ['1', '"1"'],
      ['99', '"99"'],
      ['Mar 7', '"Mar 7"'],
      ['7/4/2024', '"7/4/2024"'],
      ['2024-02-31T10:00:00Z', '"2024-02-31T10:00:00Z"'],
      ['2023-02-29', '"2023-02-29"'],
      ['2026-11-21T24:00:00Z', '"2026-11-21T24:00:00Z"'],
      ['0000-01-01', '"0000-01-01"'],
      [1e20, 'number'],
      [true, 'boolean'],
    ];
    for (const [value, got] of rejected)
      expect({ value, row: at(value) }).toEqual({
        value,
        row: { rejected: `column t: expected an ISO 8601 timestamp or epoch number of years 0001 to 9999, got ${got}` },
      });
  });

  it('keeps every digit of an integer past 2^53, in a long, a string or an object’s JSON text', () => {
    const columns: [string, string, ColumnDefinition['type']][] = [
      ['id', '$.id', 'long'],
      ['text', '$.id', 'string'],
      ['d', '$.id', 'double'],
      ['obj', '$.o', 'string'],
      ['tag', '$.s', 'string'],
    ];
    // 12345678901234567891 is past a long: only its text fits, and the long column rejects it.
    const body =
      '{"id": 9007199254740993, "o": {"a": [1850000000000000001, -9223372036854775808, 1.5e300]}, "s": "9007199254740993 in text"}';
    expect(rowsOf('json', columns, body)).toEqual([
      {
        cells: [
          9007199254740993n,
          '9007199254740993',
          9007199254740992,
          '{"a":[1850000000000000001,-9223372036854775808,1.5e+300]}',
          '9007199254740993 in text',
        ],
      },
    ]);
    expect(rowsOf('json', [['id', '$.id', 'long']], '{"id":12345678901234567891}')).toEqual([
      { rejected: 'column id: 12345678901234567891 is past a long’s range' },
    ]);
    expect(rowsOf('json', [['id', '$.id', 'string']], '{"id":12345678901234567891}')).toEqual([
      { cells: ['12345678901234567891'] },
    ]);
    // Digits inside a string (after an escaped quote too) are the string's; NDJSON lines as JSON documents.
    expect(
      rowsOf(
        'ndjson',
        [
          ['s', '$.s', 'string'],
          ['n', '$.n', 'string'],
        ],
        '{"s":"a\\"12345678901234567890","n":12345678901234567890}\n{"s":"\\\\","n":-12345678901234567890}',
      ),
    ).toEqual([
      { cells: ['a"12345678901234567890', '12345678901234567890'] },
      { cells: ['\\', '-12345678901234567890'] },
    ]);
    // A filter compares as JSON numbers do; strings with digits stay strings.
    expect(
      rowsOf('json', [['s', '$.s', 'string']], '{"s":"12345678901234567891","n":9007199254740993}', null, {
        path: '$.n',
        equals: 9007199254740992,
      }),
    ).toEqual([{ cells: ['12345678901234567891'] }]);
  });

  it('takes a double from a number or decimal text only, and an infinite one nowhere', () => {
    const column: [string, string, ColumnDefinition['type']][] = [['d', '$.d', 'double']];
    const at = (raw: string) => rowsOf('json', column, `{"d":${raw}}`)[0];
    expect([at('1.5'), at('"-2e3"'), at('"0.25"')]).toEqual([{ cells: [1.5] }, { cells: [-2000] }, { cells: [0.25] }]);
    for (const raw of ['1e400', '"0x1A"', '"0b101"', '" 12 "', '"Infinity"', '""'])
      expect({ raw, row: at(raw) }).toEqual({
        raw,
        row: { rejected: expect.stringMatching(/^column d: expected double/) },
      });
  });
});

describe('XML', () => {
  it('maps the root, attributes, text beside attributes, repeated siblings and entities to paths', () => {
    const order =
      '<?xml version="1.0" encoding="UTF-8"?>\n<order id="7">\n  <total currency="EUR">7.50</total>\n' +
      '  <item sku="a"/>\n  <item sku="b">second</item>\n  <customer>F7 &amp; Co &#x263A;</customer>\n  <empty/>\n</order>';
    expect(
      rowsOf(
        'xml',
        [
          ['id', '$.order["@id"]', 'long'],
          ['total', '$.order.total["#text"]', 'double'],
          ['currency', '$.order.total["@currency"]', 'string'],
          ['first_sku', '$.order.item[0]["@sku"]', 'string'],
          ['second', '$.order.item[1]["#text"]', 'string'],
          text('customer', '$.order.customer'),
          text('empty', '$.order.empty'),
          ['empty_long', '$.order.empty', 'long'],
          text('missing', '$.order.nothing'),
          text('items', '$.order.item'),
        ],
        order,
      ),
    ).toEqual([
      {
        cells: [
          7n,
          7.5,
          'EUR',
          'a',
          'second',
          'F7 & Co ☺',
          '',
          null,
          null,
          '[{"@sku":"a"},{"@sku":"b","#text":"second"}]',
        ],
      },
    ]);
  });

  it('keeps mixed content as #text beside the children, CDATA as text, and namespace prefixes in names', () => {
    const body =
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      '<p>Hello <b>world</b>!</p><code><![CDATA[a < b && c]]></code></soap:Body></soap:Envelope>';
    expect(
      rowsOf(
        'xml',
        [
          text('greeting', '$["soap:Envelope"]["soap:Body"].p["#text"]'),
          text('bold', '$["soap:Envelope"]["soap:Body"].p.b'),
          text('code', '$["soap:Envelope"]["soap:Body"].code'),
          text('ns', '$["soap:Envelope"]["@xmlns:soap"]'),
        ],
        body,
      ),
    ).toEqual([{ cells: ['Hello !', 'world', 'a < b && c', 'http://schemas.xmlsoap.org/soap/envelope/'] }]);
  });

  it('converts text to each column type, and a text that does not convert rejects the row', () => {
    const columns: [string, string, ColumnDefinition['type']][] = [
      ['n', '$.r.n', 'long'],
      ['d', '$.r.d', 'double'],
      ['b', '$.r.b', 'boolean'],
      ['t', '$.r.t', 'timestamp'],
    ];
    expect(
      rowsOf('xml', columns, '<r><n> +42 </n><d>-1.5e3</d><b>false</b><t>2026-11-21T10:00:00.123456Z</t></r>'),
    ).toEqual([{ cells: [42n, -1500, false, 1795255200123456n] }]);
    expect(rowsOf('xml', columns, '<r><t>2026-11-21</t></r>')).toEqual([
      { cells: [null, null, null, 1795219200000000n] },
    ]);
    const refused: [string, string][] = [
      ['<r><n>4.2</n></r>', 'column n: "4.2" is not a long'],
      ['<r><n>+-5</n></r>', 'column n: "+-5" is not a long'],
      ['<r><t>2026-02-30</t></r>', 'column t: "2026-02-30" is not a timestamp'],
      ['<r><n>99999999999999999999</n></r>', 'column n: "99999999999999999999" is not a long'],
      ['<r><d>1,5</d></r>', 'column d: "1,5" is not a double'],
      ['<r><d>Infinity</d></r>', 'column d: "Infinity" is not a double'],
      ['<r><b>yes</b></r>', 'column b: "yes" is not a boolean'],
      ['<r><t>1795000000</t></r>', 'column t: "1795000000" is not a timestamp'],
      ['<r><t>Nov 21 2026</t></r>', 'column t: "Nov 21 2026" is not a timestamp'],
      ['<r><n a="1">2</n></r>', 'column n: expected long, got object'],
    ];
    for (const [body, reason] of refused)
      expect({ body, rows: rowsOf('xml', columns, body) }).toEqual({ body, rows: [{ rejected: reason }] });
  });

  it('rejects hostile documents without expanding or fetching anything', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
      Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('') +
      ']><lolz>&lol9;</lolz>';
    const external = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>';
    const publicDtd = '<!DOCTYPE r PUBLIC "-//x//y" "http://127.0.0.1:1/evil.dtd"><r>a</r>';
    const doctype = 'XML with a DOCTYPE is not accepted (no DTDs, no entity declarations)';
    const open = (depth: number) => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;
    const attributes = (count: number) => `<r ${Array.from({ length: count }, (_, i) => `a${i}="${i}"`).join(' ')}/>`;
    const cases: [string, string][] = [
      [laughs, doctype],
      [external, doctype],
      [publicDtd, doctype],
      [open(65), 'XML nested deeper than 64 elements'],
      [attributes(257), 'XML element with over 256 attributes'],
      ['<r a="1" a="2"/>', expect.stringMatching(/^XML is not well-formed: .*duplicate attribute/i) as never],
      ['<r>&undefined;</r>', expect.stringMatching(/^XML is not well-formed: .*undefined entity/i) as never],
      ['<r><a></r>', expect.stringMatching(/^XML is not well-formed: /) as never],
      ['<r>\u0001</r>', expect.stringMatching(/^XML is not well-formed: /) as never],
      ['<r/><r/>', expect.stringMatching(/^XML is not well-formed: /) as never],
      ['', expect.stringMatching(/^XML is not well-formed: /) as never],
      [`<r>${'<i/>'.repeat(100_001)}</r>`, 'XML document over 100000 nodes'],
    ];
    for (const [body, reason] of cases)
      expect({ body: body.slice(0, 60), rows: rowsOf('xml', [text('x', '$.r')], body) }).toEqual({
        body: body.slice(0, 60),
        rows: [{ rejected: reason }],
      });
    expect(rowsOf('xml', [text('a', '$.a')], open(64))).toEqual([{ cells: [expect.any(String)] }]);
    expect(rowsOf('xml', [text('a', '$.r["@a255"]')], attributes(256))).toEqual([{ cells: ['255'] }]);
  });

  it('reads the declared encoding or a UTF-16 byte-order mark, and refuses invalid UTF-8', () => {
    const latin1 = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><r>M\xfcller</r>', 'latin1');
    expect(rowsOf('xml', [text('r', '$.r')], latin1)).toEqual([{ cells: ['Müller'] }]);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<r>Grüße</r>', 'utf16le')]);
    expect(rowsOf('xml', [text('r', '$.r')], utf16)).toEqual([{ cells: ['Grüße'] }]);
    const broken = Buffer.concat([Buffer.from('<r>'), Buffer.from([0xc3, 0x28]), Buffer.from('</r>')]);
    expect(rowsOf('xml', [text('r', '$.r')], broken)).toEqual([{ rejected: 'payload is not valid UTF-8' }]);
    const unknown = '<?xml version="1.0" encoding="x-klingon"?><r/>';
    expect(rowsOf('xml', [text('r', '$.r')], unknown)).toEqual([
      { rejected: 'payload encoding "x-klingon" is not supported' },
    ]);
  });

  it('treats element names such as __proto__ as plain keys', () => {
    expect(
      rowsOf('xml', [text('p', '$.r.__proto__'), text('c', '$.r.constructor')], '<r><__proto__>x</__proto__></r>'),
    ).toEqual([{ cells: ['x', null] }]);
  });
});

describe('form', () => {
  it('decodes keys to values (+ is a space, percent-escapes in UTF-8), a repeated key to an array', () => {
    expect(
      rowsOf(
        'form',
        [
          ['id', '$.id', 'long'],
          text('customer', '$.customer'),
          ['total', '$.total', 'double'],
          text('tags', '$.tag'),
          text('first_tag', '$.tag[0]'),
          text('flag', '$.flag'),
          text('city', '$.city'),
          text('proto', '$.__proto__'),
        ],
        'id=7&customer=F7+%26+Co&total=7.25&tag=a&tag=b%2Bc&tag=d&flag&city=K%C3%B6ln&&__proto__=p&bad=%zz',
      ),
    ).toEqual([{ cells: [7n, 'F7 & Co', 7.25, '["a","b+c","d"]', 'a', '', 'Köln', 'p'] }]);
  });

  it('reads the content type’s charset, and refuses bytes that are not valid in it', () => {
    expect(
      rowsOf(
        'form',
        [text('name', '$.name')],
        'name=M%FCller',
        'application/x-www-form-urlencoded; charset=windows-1252',
      ),
    ).toEqual([{ cells: ['Müller'] }]);
    expect(rowsOf('form', [text('name', '$.name')], 'name=M%FCller')).toEqual([
      { rejected: 'form field is not valid UTF-8' },
    ]);
    expect(rowsOf('form', [['n', '$.n', 'long']], 'n=seven')).toEqual([
      { rejected: 'column n: "seven" is not a long' },
    ]);
  });
});

describe('NDJSON', () => {
  it('makes one row per non-empty line; a bad line rejects that row only', () => {
    const body = '{"n":1}\r\n\n   \n{"n":2}\n{"n":\n{"n":"x"}\n{"n":3}';
    expect(rowsOf('ndjson', [['n', '$.n', 'long']], body)).toEqual([
      { cells: [1n] },
      { cells: [2n] },
      { rejected: 'line 5 is not valid JSON' },
      { rejected: 'column n: expected long, got string' },
      { cells: [3n] },
    ]);
    expect(rowsOf('ndjson', [['n', '$.n', 'long']], '\n\n')).toEqual([]);
  });
});

describe('JSON', () => {
  it('keeps the last of repeated keys, never reads a prototype, and refuses invalid UTF-8 and values too deep to write', () => {
    expect(
      rowsOf('json', [['n', '$.n', 'long'], text('c', '$.constructor'), text('s', '$.toString')], '{"n":1,"n":2}'),
    ).toEqual([{ cells: [2n, null, null] }]);
    expect(
      rowsOf('json', [text('a', '$.a')], Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])),
    ).toEqual([{ rejected: 'payload is not valid UTF-8' }]);
    // Any depth parses; a value too deep to write as text rejects its row, and the run goes on.
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(rowsOf('json', [text('a', '$[0]')], deep(65))).toEqual([{ cells: [deep(64)] }]);
    expect(rowsOf('json', [text('a', '$[0]')], deep(100_000))).toEqual([
      { rejected: 'column a: value nested too deeply to write as text' },
    ]);
    expect(rowsOf('json', [['n', '$[0][0]', 'long']], deep(100_000))).toEqual([
      { rejected: 'column n: expected long, got array' },
    ]);
    expect(rowsOf('json', [['n', '$.n', 'boolean']], '{"n":"true"}')).toEqual([
      { rejected: 'column n: expected boolean, got string' },
    ]);
  });
});

describe('auto', () => {
  it('decodes by the content type, and anything else as JSON', () => {
    const cases: [string | null, string, unknown[]][] = [
      ['application/json; charset=utf-8', '{"n":"1"}', [{ cells: ['1'] }]],
      ['application/x-ndjson', '{"n":1}\n{"n":2}', [{ cells: ['1'] }, { cells: ['2'] }]],
      ['application/jsonl', '{"n":3}', [{ cells: ['3'] }]],
      ['text/xml', '<n>4</n>', [{ cells: ['4'] }]],
      ['application/soap+xml', '<n>5</n>', [{ cells: ['5'] }]],
      ['application/x-www-form-urlencoded', 'n=6', [{ cells: ['6'] }]],
      ['text/plain', '{"n":7}', [{ cells: ['7'] }]],
      [null, '{"n":8}', [{ cells: ['8'] }]],
      ['APPLICATION/XML', '{"n":9}', [{ rejected: expect.stringMatching(/^XML is not well-formed/) }]],
    ];
    for (const [contentType, body, rows] of cases)
      expect({ contentType, rows: rowsOf('auto', [text('n', '$.n')], body, contentType) }).toEqual({
        contentType,
        rows,
      });
  });
});

describe('where', () => {
  it('keeps rows whose value equals the JSON value; JSON compares types, text formats compare as the value', () => {
    const where = (equals: unknown) => ({ path: '$.type', equals: equals as never });
    const json = (body: unknown, equals: unknown) =>
      rowsOf('json', [text('t', '$.type')], JSON.stringify(body), null, where(equals));
    expect(json({ type: 'invoice.paid' }, 'invoice.paid')).toEqual([{ cells: ['invoice.paid'] }]);
    expect(json({ type: 'invoice.created' }, 'invoice.paid')).toEqual([{ filtered: true }]);
    expect(json({ type: 7 }, '7')).toEqual([{ filtered: true }]);
    expect(json({ type: 7 }, 7)).toEqual([{ cells: ['7'] }]);
    expect(json({}, null)).toEqual([{ cells: [null] }]);
    expect(json({ type: { a: [1, 2] } }, { a: [1, 2] })).toEqual([{ cells: ['{"a":[1,2]}'] }]);
    expect(json({ type: { a: [1, 2] } }, { a: [2, 1] })).toEqual([{ filtered: true }]);

    const form = (body: string, equals: unknown) => rowsOf('form', [text('t', '$.type')], body, null, where(equals));
    expect(form('type=7.0', 7)).toEqual([{ cells: ['7.0'] }]);
    expect(form('type=', 0)).toEqual([{ filtered: true }]);
    expect(form('type=true', true)).toEqual([{ cells: ['true'] }]);
    expect(form('type=Completed', 'completed')).toEqual([{ filtered: true }]);
    // A filtered row is never rejected for its columns; a payload that does not decode is.
    expect(rowsOf('json', [['n', '$.n', 'long']], '{"type":"x","n":"no"}', null, where('y'))).toEqual([
      { filtered: true },
    ]);
    expect(rowsOf('json', [text('t', '$.type')], 'nope', null, where('y'))).toEqual([
      { rejected: 'payload is not valid JSON' },
    ]);
  });
});
