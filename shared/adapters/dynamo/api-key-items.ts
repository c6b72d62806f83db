/**
 * Where API keys live in the table. Apart from api-keys.ts (which reads and writes them) because the
 * stack reads it too: a read-only route's role may update API key items' last use, and only those.
 */
export const apiKeyKeys = {
  lookup: (hash: string) => ({ pk: `API_KEY#${hash}`, sk: 'API_KEY' }),
  ofUser: (userId: string, apiKeyId: string) => ({ pk: `USER#${userId}`, sk: `API_KEY#${apiKeyId}` }),
  userPartition: (userId: string) => `USER#${userId}`,
  bootstrapPointer: { pk: 'BOOTSTRAP_KEY', sk: 'BOOTSTRAP_KEY' },
};
