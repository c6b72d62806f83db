/**
 * The console's only way to the API: same origin, the API key from sessionStorage in `X-API-Key`.
 * A 401 ends the session (back to sign-in); any other error keeps the API's own code and message.
 */
import type { components, paths } from './api-types.ts';

const keyName = 'tributary.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(keyName),
  signIn: (key: string) => sessionStorage.setItem(keyName, key),
  signOut: () => sessionStorage.removeItem(keyName),
};

/** A validation issue as the API names it: the field's path and what is wrong with it. */
export type Issue = NonNullable<Schemas['Error']['details']>[number];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: Issue[] = [],
  ) {
    super(message);
  }
}

/** Called when the key stops working: the app shows the sign-in with this message. */
let onUnauthorized: (message: string) => void = () => {};
export function whenUnauthorized(handler: (message: string) => void): void {
  onUnauthorized = handler;
}

/** A reading answered 503 with Retry-After (the service busy for a moment) is asked again this many times. */
const busyRetries = 2;

/** Waits `seconds` (at most 5), or until the view is left. */
function pause(seconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, Math.min(5, Math.max(0, seconds)) * 1000);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Paths are relative ("api/…", "health"), so the console works under any base path the API has.
 * `signal`: the view's (view.ts), so that a request of a view the operator left is abandoned. A GET
 * the service answers 503 with Retry-After is asked again after that wait, twice at most.
 */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { 'x-api-key': session.key() ?? '' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const method = init.method ?? 'GET';
  let response: Response;
  for (let attempt = 0; ; attempt++) {
    try {
      response = await fetch(path, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        cache: 'no-store',
        signal: init.signal,
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ApiError(0, 'NETWORK', 'Tributary could not be reached', null);
    }
    if (!(response.status === 503 && path !== 'health' && method === 'GET' && attempt < busyRetries)) break;
    const retryAfter = Number(response.headers.get('retry-after'));
    if (!(retryAfter > 0)) break;
    await response.body?.cancel();
    await pause(retryAfter, init.signal);
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (response.ok || (response.status === 503 && path === 'health')) return body as T;
  // The error shape the API answers with; a proxy in front of it may answer anything (or nothing).
  const error = (body ?? {}) as Partial<Schemas['Error']>;
  const failure = new ApiError(
    response.status,
    error.code ?? `HTTP_${response.status}`,
    error.message ?? response.statusText,
    error.request_id ?? null,
    Array.isArray(error.details) ? error.details : [],
  );
  if (response.status === 401) {
    session.signOut();
    onUnauthorized(`${failure.code}: ${failure.message}`);
  }
  throw failure;
}

export const qs = (params: Record<string, string | number | undefined | null>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

/**
 * Every item of a listing, page after page (1000 a page, the API's most) until `next_cursor` is
 * null: a view whose figures and warnings must cover the whole list never stops at its first page.
 */
export async function everyItem<K extends string, T>(
  path: string,
  key: K,
  signal?: AbortSignal,
  limit = 1000,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await api<Record<K, T[]> & { next_cursor: string | null }>(`${path}${qs({ limit, cursor })}`, {
      signal,
    });
    items.push(...page[key]);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

// The shapes the console reads, as the API's OpenAPI document describes them (./api-types.ts is
// generated from it): the console writes none of them down itself.
/** The API's named shapes: the document's components. */
export type Schemas = components['schemas'];
type Operation<P extends keyof paths, M extends string> = M extends keyof paths[P] ? paths[P][M] : never;
type JsonOf<R> = R extends { content: { 'application/json': infer Json } } ? Json : never;

/** What a route answers on success (200, 201 or 202), by its path in the document and its method. */
export type Answer<P extends keyof paths, M extends string = 'get'> =
  Operation<P, M> extends { responses: infer R }
    ? JsonOf<R extends { 200: infer S } ? S : R extends { 201: infer S } ? S : R extends { 202: infer S } ? S : never>
    : never;

/** The JSON body a route takes, by its path in the document and its method. */
export type Body<P extends keyof paths, M extends string> =
  Operation<P, M> extends { requestBody: infer B } ? JsonOf<B> : never;

export type Caller = Schemas['Caller'];
export type Tenant = Schemas['Tenant'];
export type Connection = Schemas['Connection'];
export type ConnectionDetail = Schemas['ConnectionDetail'];
export type Stats = Schemas['ConnectionStats'];
/** How a connection checks its senders (`GET|PUT api/connections/{id}/security`). */
export type SourceSecurity = Schemas['SourceSecurity'];
/** `GET|PUT api/data-sets/{id}/table-properties`: what the table sets, and what is in force. */
export type TableProperties = Schemas['CurrentTableProperties'];
export type Health = Schemas['HealthReport'];
export type HistoryInterval = Schemas['HistoryInterval'];
export type TrafficHistory = Schemas['TrafficHistory'];
