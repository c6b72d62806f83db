/**
 * The console's only way to the API: same origin, the API key from sessionStorage in `X-API-Key`.
 * A 401 ends the session (back to sign-in); any other error keeps the API's own code and message.
 */

const keyName = 'tributary.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(keyName),
  signIn: (key: string) => sessionStorage.setItem(keyName, key),
  signOut: () => sessionStorage.removeItem(keyName),
};

/** A validation issue as the API names it: the field's path and what is wrong with it. */
export interface Issue {
  path: string;
  message: string;
}

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

/** Paths are relative ("api/…", "health"), so the console works under any base path the API has. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { 'x-api-key': session.key() ?? '' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'NETWORK', 'Tributary could not be reached', null);
  }
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (response.ok || (response.status === 503 && path === 'health')) return body as T;
  const error = (body ?? {}) as { code?: string; message?: string; request_id?: string; details?: Issue[] | null };
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

// The shapes the console reads (the API's OpenAPI document has them all).
export interface Caller {
  role: 'PlatformAdmin' | 'TenantAdmin' | 'TenantEditor' | 'TenantViewer';
  tenant_id: string | null;
  permissions: string[];
}
export interface Tenant {
  tenant_id: string;
  name: string;
  slug: string;
  status: string;
}
export interface Connection {
  connection_id: string;
  tenant_id: string;
  name: string;
  status: string;
  source_id: string;
  source_status: string;
  data_set_id: string;
  token_prefix: string;
}
export interface Stats {
  accepted: number;
  rejected: Record<string, number>;
  written_rows: number;
  dead_lettered: number;
  last_ingest_at: string | null;
  last_write_at: string | null;
  /** Accepted, staged, not committed to the table yet (listed as pending events). */
  staged_rows: number;
  oldest_unwritten_age_seconds: number | null;
  /** Why the table's last commit failed while its staged rows wait for the next attempt. */
  commit_failure: { attempts: number; last_error: string } | null;
}
/** `GET|PUT api/data-sets/{id}/table-properties`: what the table sets, and what is in force. */
export interface TableProperties {
  version: number | null;
  properties: Record<string, string>;
  effective: { freshness_seconds: number };
}
export interface Health {
  status: string;
  checks: { name: string; healthy: boolean }[];
}
