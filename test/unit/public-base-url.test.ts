/**
 * The API's public address, as ingest URLs and the API reference name it: the edge's when the
 * deployment puts CloudFront in front (which reaches API Gateway under API Gateway's own host name),
 * else the host the caller reached.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { publicBaseUrl } from '#shared/http/request.ts';

const event = (headers: Record<string, string>) =>
  ({
    headers,
    requestContext: { domainName: 'abc123.execute-api.eu-west-1.amazonaws.com' },
  }) as never as APIGatewayProxyEventV2;

afterEach(() => {
  delete process.env.PUBLIC_BASE_URL;
});

describe('the public base URL', () => {
  it('is the host the caller reached, with the protocol API Gateway saw', () => {
    expect(publicBaseUrl(event({ host: 'api.example.com', 'x-forwarded-proto': 'https' }))).toBe(
      'https://api.example.com',
    );
    expect(publicBaseUrl(event({ host: '127.0.0.1:3000' }))).toBe('http://127.0.0.1:3000');
  });

  it('is the edge’s address when the deployment sets one, whatever host CloudFront reached', () => {
    process.env.PUBLIC_BASE_URL = 'https://d111111abcdef8.cloudfront.net';
    expect(publicBaseUrl(event({ host: 'abc123.execute-api.eu-west-1.amazonaws.com' }))).toBe(
      'https://d111111abcdef8.cloudfront.net',
    );
  });
});
