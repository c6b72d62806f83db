import * as z from 'zod';
import { maxPathBytes, maxPathCharacters } from '../../domain/wiki/use-cases.ts';
import { id, nextCursor, pageQuery, timestamp } from './common.ts';

/** Paths are part of a DynamoDB key: limited in characters and in UTF-8 bytes. */
const withinBytes = (value: string) => Buffer.byteLength(value, 'utf8') <= maxPathBytes;
const bytesMessage = `At most ${maxPathBytes} bytes of UTF-8`;

export const wikiPathParams = z.strictObject({
  path: z
    .string()
    .min(1)
    .max(maxPathCharacters)
    .refine(withinBytes, bytesMessage)
    .describe(
      `The document path: 1–${maxPathCharacters} characters and at most ${maxPathBytes} bytes of UTF-8, "/" between segments, no empty, "." or ".." segment, no leading "/"`,
    ),
});
export const wikiScopeQuery = z.strictObject({ tenant_id: id.optional() });
export const listWikiQuery = z.strictObject({
  tenant_id: id.optional(),
  prefix: z
    .string()
    .max(maxPathCharacters)
    .refine(withinBytes, bytesMessage)
    .optional()
    .describe(
      `Only paths that start with this; at most ${maxPathCharacters} characters and ${maxPathBytes} bytes of UTF-8`,
    ),
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
