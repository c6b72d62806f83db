import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildEvent, compileRoutes } from '../../local/http-front.ts';

function request(method: string, url: string, rawHeaders: string[]): IncomingMessage {
  const message = new IncomingMessage(new Socket());
  message.method = method;
  message.url = url;
  message.rawHeaders = rawHeaders;
  message.httpVersion = '1.1';
  return message;
}

describe('the local HTTP front', () => {
  it('orders static segments before parameters, as API Gateway matches them', () => {
    const keys = compileRoutes().map((route) => route.key);
    for (const [i, key] of keys.entries()) {
      const segments = key.split(' ')[1]?.split('/') ?? [];
      for (const later of keys.slice(i + 1)) {
        const laterSegments = later.split(' ')[1]?.split('/') ?? [];
        const firstDifference = segments.findIndex((segment, index) => segment !== laterSegments[index]);
        if (firstDifference < 0) continue;
        const here = segments[firstDifference] ?? '';
        const there = laterSegments[firstDifference] ?? '';
        expect({ key, later, wrongOrder: here.startsWith('{') && !there.startsWith('{') && there !== '' }).toEqual({
          key,
          later,
          wrongOrder: false,
        });
      }
    }
  });

  it('builds a payload 2.0 event: lowercased headers, joined repeats, decoded query', () => {
    const event = buildEvent(
      request('POST', '/api/x?feed=a&feed=b&q=%20s', [
        'Content-Type',
        'application/json',
        'X-Thing',
        '1',
        'x-thing',
        '2',
      ]),
      Buffer.from('{"a":1}'),
      'POST /api/x',
      undefined,
    );
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('POST /api/x');
    expect(event.headers).toEqual({ 'content-type': 'application/json', 'x-thing': '1,2' });
    expect(event.queryStringParameters).toEqual({ feed: 'a,b', q: ' s' });
    expect(event.rawQueryString).toBe('feed=a&feed=b&q=%20s');
    expect(event.body).toBe('{"a":1}');
    expect(event.isBase64Encoded).toBe(false);
  });

  it('base64-encodes binary bodies and text bodies that are not valid UTF-8', () => {
    const binary = Buffer.from([0, 255, 128, 10]);
    const asOctets = buildEvent(
      request('POST', '/', ['content-type', 'application/octet-stream']),
      binary,
      'x',
      undefined,
    );
    expect(asOctets.isBase64Encoded).toBe(true);
    expect(Buffer.from(asOctets.body ?? '', 'base64')).toEqual(binary);
    const invalidText = buildEvent(request('POST', '/', ['content-type', 'application/json']), binary, 'x', undefined);
    expect(invalidText.isBase64Encoded).toBe(true);
    expect(Buffer.from(invalidText.body ?? '', 'base64')).toEqual(binary);
  });
});

describe('the raw path', () => {
  it('keeps dot segments, encoded or not, for the handler to judge', async () => {
    const { rawPathOf } = await import('../../local/http-front.ts');
    expect(rawPathOf('/api/wiki-documents/a/../b?x=1')).toBe('/api/wiki-documents/a/../b');
    expect(rawPathOf('/api/wiki-documents/a/%2E%2E/b')).toBe('/api/wiki-documents/a/%2E%2E/b');
  });
});
