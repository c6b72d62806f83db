/**
 * A small HTTP client for the integration suite: every call goes through the real local front, and
 * every response is checked against the OpenAPI document the service serves (test/support/contract.ts).
 */
import { appendFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { inject } from 'vitest';
import { contractChecker, type Document } from './contract.ts';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  headers?: Record<string, string>;
  /** A JSON value, or raw bytes/text sent as is. */
  json?: unknown;
  raw?: string | Uint8Array;
  /**
   * Ask again, up to three times, when answered 503 with Retry-After (the service busy for a moment),
   * as a client should: for setup calls, whose answers are not what a test checks.
   */
  retryBusy?: boolean;
}

/** Every response body the suite sees, so that a test can scan them all for secrets. */
export const seenBodies: string[] = [];

const checkers = new Map<string, Promise<ReturnType<typeof contractChecker>>>();

function checkerFor(baseUrl: string) {
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = fetch(`${baseUrl}/openapi.json`)
      .then((response) => response.json())
      .then((document) => contractChecker(document as Document));
    checkers.set(baseUrl, checker);
  }
  return checker;
}

export function apiClient(baseUrl = inject('baseUrl'), defaultKey: string | null = inject('adminKey')) {
  async function call<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key) headers['x-api-key'] = key;
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.raw !== undefined) {
      body = options.raw;
    }
    let response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    for (let retried = 0; options.retryBusy && retried < 3 && response.status === 503; retried++) {
      const seconds = Number(response.headers.get('retry-after'));
      if (!(seconds > 0)) break;
      await response.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    }
    const text = await response.text();
    seenBodies.push(text);
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    const verdict = (await checkerFor(baseUrl))({
      method,
      url: path,
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text,
    });
    appendFileSync(inject('contractLog'), `${verdict.seen}\n`);
    if (verdict.violations.length > 0)
      throw new Error(`Response breaks the API contract: ${verdict.violations.join('; ')}`);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
  return {
    baseUrl,
    get: <T = unknown>(path: string, options?: RequestOptions) => call<T>('GET', path, options),
    post: <T = unknown>(path: string, options?: RequestOptions) => call<T>('POST', path, options),
    put: <T = unknown>(path: string, options?: RequestOptions) => call<T>('PUT', path, options),
    delete: <T = unknown>(path: string, options?: RequestOptions) => call<T>('DELETE', path, options),
    call,
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** A request whose path goes out byte for byte (fetch normalises "..", "%2e%2e" and the like away). */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
  /** The local address to send from (any of 127.0.0.0/8 on Linux), to appear as another client. */
  localAddress?: string,
): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const request = httpRequest(
      {
        hostname: url.hostname,
        port: url.port,
        method,
        path,
        localAddress,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
