/**
 * Wiki documents.
 *   pk WIKI#<tenant_id or GLOBAL>   sk PATH#<path>
 * Paths sort lexicographically within a scope, so a prefix listing is one Query.
 */
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { WikiDocument, WikiRepository } from '../../domain/wiki/use-cases.ts';
import { itemReader, orNull, shapeReader } from './stored-items.ts';
import { db, queryPage, table } from './table.ts';

export const wikiKeys = {
  scope: (tenantId: string | null) => `WIKI#${tenantId ?? 'GLOBAL'}`,
  document: (tenantId: string | null, path: string) => ({ pk: `WIKI#${tenantId ?? 'GLOBAL'}`, sk: `PATH#${path}` }),
};

const toDocument = /* @__PURE__ */ itemReader<WikiDocument>('WikiDocument', () => ({
  document_id: z.string(),
  path: z.string(),
  content: z.string(),
  tenant_id: orNull(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
}));

/** A listing reads only the path of each document. */
const toPath = /* @__PURE__ */ shapeReader('WikiDocument', () => ({ path: z.string() }));

export const wiki: WikiRepository = {
  async getDocument(tenantId, path) {
    const result = await db.send(
      new GetCommand({ TableName: table(), Key: wikiKeys.document(tenantId, path), ConsistentRead: true }),
    );
    return result.Item ? toDocument(result.Item) : null;
  },

  /** One write creates or replaces; the document keeps its id and creation time across replacements. */
  async putDocument(document) {
    const result = await db.send(
      new UpdateCommand({
        TableName: table(),
        Key: wikiKeys.document(document.tenant_id, document.path),
        UpdateExpression:
          'SET entity = :entity, document_id = if_not_exists(document_id, :id), #path = :path, content = :content, ' +
          'tenant_id = :tenant, created_at = if_not_exists(created_at, :at), updated_at = :at',
        ExpressionAttributeNames: { '#path': 'path' },
        ExpressionAttributeValues: {
          ':entity': 'WikiDocument',
          ':id': document.document_id,
          ':path': document.path,
          ':content': document.content,
          ':tenant': document.tenant_id,
          ':at': document.updated_at,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const stored = toDocument(result.Attributes ?? {});
    return { created: stored.document_id === document.document_id, document: stored };
  },

  async deleteDocument(tenantId, path) {
    const result = await db.send(
      new DeleteCommand({ TableName: table(), Key: wikiKeys.document(tenantId, path), ReturnValues: 'ALL_OLD' }),
    );
    return Boolean(result.Attributes);
  },

  async listPaths(tenantId, prefix, page) {
    return queryPage(
      { partition: wikiKeys.scope(tenantId), sortBeginsWith: `PATH#${prefix}` },
      page,
      (item) => toPath(item).path,
    );
  },
};
