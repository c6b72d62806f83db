/**
 * A connection's rejections as its tenant reads them. Each is shown through the same header rule it
 * was kept by (safeHeaders), with the source's signature settings as they are now: a rejection kept
 * under an older, narrower rule shows no signature either.
 */
import type { Source } from '../connections/model.ts';
import { secretHeadersOf } from '../connections/signature-headers.ts';
import { visibleConnection } from '../connections/use-cases.ts';
import { safeHeaders } from '../ingest/credential-headers.ts';
import type { Rejection } from '../ingest/kept-records.ts';
import type { Page, PageRequest } from '../pagination.ts';
import type { Principal } from '../principal.ts';

export type RejectionDeps = Parameters<typeof visibleConnection>[0] & {
  getSource(sourceId: string): Promise<Source | null>;
  /** Newest first, as kept. */
  listRejections(sourceId: string, page: PageRequest): Promise<Page<Rejection>>;
};

/**
 * List a connection's rejections.
 * Input: the connection id and a page. Output: the page, newest first.
 *  1. The connection must be visible to the caller (TenantViewer and up).
 *  2. Its source's signature settings name the headers to leave out (every preset's when it has none).
 *  3. Each rejection's headers are filtered again by safeHeaders.
 */
export async function connectionRejections(
  deps: RejectionDeps,
  principal: Principal,
  connectionId: string,
  page: PageRequest,
): Promise<Page<Rejection>> {
  const connection = await visibleConnection(deps, principal, connectionId, 'read');
  const [source, kept] = await Promise.all([
    deps.getSource(connection.source_id),
    deps.listRejections(connection.source_id, page),
  ]);
  const secretHeaders = secretHeadersOf(source?.security.signature ?? null);
  return {
    items: kept.items.map((rejection) => ({ ...rejection, headers: safeHeaders(rejection.headers, secretHeaders) })),
    nextCursor: kept.nextCursor,
  };
}
