/**
 * Headers the envelope kept, read back: the pipelines' path language (`$headers["name"]`) in columns
 * and `where`, and each preset's event type (a header, or a value in the body), written out.
 */
import { describe, expect, it } from 'vitest';
import type { SignatureScheme } from '#shared/domain/connections/presets.ts';
import { jsonPath, parsePath, parseValuePath, valuePath } from '#shared/domain/json-path.ts';
import { eventTypeField, eventTypeOf } from '#shared/domain/monitoring/events.ts';
import { compileQuery } from '#shared/domain/pipelines/compile-query.ts';

describe('the header path', () => {
  it('is $headers with one name step, in any of the three spellings, the name lowercased', () => {
    const accepted: [string, string][] = [
      ['$headers["x-github-event"]', 'x-github-event'],
      ["$headers['X-GitHub-Event']", 'x-github-event'],
      ['$headers.X-GitHub-Event', 'x-github-event'],
      ['$headers["odd \\"name\\""]', 'odd "name"'],
    ];
    for (const [path, name] of accepted) {
      expect(valuePath.safeParse(path).success, path).toBe(true);
      expect(parseValuePath(path)).toEqual({ header: name });
    }
    for (const path of ['$headers', '$headers["a"].b', '$headers[0]', '$header["a"]', 'headers["a"]'])
      expect(valuePath.safeParse(path).success, path).toBe(false);
    // Body paths are as before, a key named headers among them.
    expect(parseValuePath('$.headers.a')).toEqual({ steps: ['headers', 'a'] });
    expect(parseValuePath('$["x"][0]')).toEqual({ steps: ['x', 0] });
  });

  it('quotes a step as a JSON string does: its escapes read back, anything else refused (never a parse that throws)', () => {
    const read: [string, (string | number)[]][] = [
      [String.raw`$["a\"b"]`, ['a"b']],
      [String.raw`$["a\\b"]`, ['a\\b']],
      [String.raw`$["\/"]`, ['/']],
      [String.raw`$["\u00e9t\u00E9"]`, ['été']],
      [String.raw`$["\n\t\r\b\f"]`, ['\n\t\r\b\f']],
      [String.raw`$["a b"][0].c`, ['a b', 0, 'c']],
    ];
    for (const [path, steps] of read) {
      expect(jsonPath.safeParse(path).success, path).toBe(true);
      expect(valuePath.safeParse(path).success, path).toBe(true);
      expect(parsePath(path), path).toEqual(steps);
    }
    expect(parseValuePath(String.raw`$headers["x-\u0041"]`)).toEqual({ header: 'x-a' });
    for (const path of [
      String.raw`$["\q"]`,
      String.raw`$["\x41"]`,
      String.raw`$["\u12"]`,
      String.raw`$["\u12G4"]`,
      String.raw`$["\"]`,
      String.raw`$["a\"]`,
      '$["a\tb"]',
      '$["a\nb"]',
      '$["\u0000"]',
      String.raw`$headers["\q"]`,
    ]) {
      expect(jsonPath.safeParse(path).success, path).toBe(false);
      expect(valuePath.safeParse(path).success, path).toBe(false);
    }
  });

  it('reads a kept header into a column as text converted to its type, null where there is none', () => {
    const run = compileQuery({
      decode: { format: 'json' },
      columns: [
        { name: 'event', path: '$headers["X-GitHub-Event"]', type: 'string' },
        { name: 'hook', path: '$headers.x-github-hook-id', type: 'long' },
        { name: 'action', path: '$.action', type: 'string' },
      ],
    });
    const body = Buffer.from('{"action":"opened"}');
    expect(
      run(body, 'application/json', { 'x-github-event': 'pull_request', 'x-github-hook-id': '292430182' }),
    ).toEqual([{ cells: ['pull_request', 292430182n, 'opened'] }]);
    expect(run(body, 'application/json', {})).toEqual([{ cells: [null, null, 'opened'] }]);
    expect(run(body, 'application/json', null)).toEqual([{ cells: [null, null, 'opened'] }]);
    expect(run(body, 'application/json', { 'x-github-hook-id': 'abc' })).toEqual([
      { rejected: 'column hook: "abc" is not a long' },
    ]);
  });

  it('filters rows by a header in where', () => {
    const run = compileQuery({
      decode: { format: 'json' },
      where: { path: "$headers['x-github-event']", equals: 'push' },
      columns: [{ name: 'n', path: '$.n', type: 'long' }],
    });
    const body = Buffer.from('{"n":1}');
    expect(run(body, null, { 'x-github-event': 'push' })).toEqual([{ cells: [1n] }]);
    expect(run(body, null, { 'x-github-event': 'pull_request' })).toEqual([{ filtered: true }]);
    expect(run(body, null, null)).toEqual([{ filtered: true }]);
  });
});

describe('the event type a preset names', () => {
  const source = (scheme: SignatureScheme | null) => ({
    security: {
      auth_mode: 'signature' as const,
      signature:
        scheme === null ? null : { scheme, header: null, encoding: null, tolerance_seconds: null, secrets: [] },
      dedup_window_seconds: 0,
      rate_limit: null,
      ip_allowlist: null,
    },
  });
  const cases: [SignatureScheme | null, Record<string, string> | null, string, string | null][] = [
    ['github', { 'x-github-event': 'pull_request' }, '{"action":"opened"}', 'pull_request'],
    ['github', null, '{"action":"opened"}', null],
    ['stripe', { 'x-github-event': 'ignored' }, '{"id":"evt_1","type":"invoice.paid"}', 'invoice.paid'],
    ['shopify', { 'x-shopify-topic': 'orders/create' }, '{"id":1}', 'orders/create'],
    ['slack', {}, '{"type":"event_callback","event":{"type":"app_mention"}}', 'app_mention'],
    ['slack', {}, 'not json', null],
    ['gitlab', { 'x-gitlab-event': 'Push Hook' }, '{}', 'Push Hook'],
    ['paddle', {}, '{"event_type":"transaction.completed"}', 'transaction.completed'],
    ['meta', { 'x-github-event': 'push' }, '{"object":"page"}', null],
    [null, { 'x-github-event': 'push' }, '{"type":"x"}', null],
  ];
  it('is read where the connection’s preset says, and null where it says nothing', () => {
    const seen = cases.map(([scheme, headers, body]) =>
      eventTypeOf(eventTypeField(source(scheme)), { body: Buffer.from(body), headers }),
    );
    expect(seen).toEqual(cases.map(([, , , expected]) => expected));
  });
});
