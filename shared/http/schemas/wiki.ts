import * as z from 'zod';
import { id, nextCursor, pageQuery, timestamp } from './common.ts';

export const wikiPathParams = z.strictObject({ path: z.string().min(1).max(2048) });
export const wikiScopeQuery = z.strictObject({ tenant_id: id.optional() });
export const listWikiQuery = z.strictObject({
  tenant_id: id.optional(),
  prefix: z.string().max(512).optional(),
  ...pageQuery,
});
export const listWikiResponse = z.object({ paths: z.array(z.string()), next_cursor: nextCursor });
// The content limit (256 KiB of UTF-8) is checked in bytes by the use case, answering 413.
export const putWikiBody = z.strictObject({ content: z.string() });
export const wikiDocument = z
  .object({
    document_id: id,
    path: z.string(),
    content: z.string(),
    tenant_id: id.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'WikiDocument' });
