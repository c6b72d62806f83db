/**
 * The single table's shape, in one place. The CDK stateful stack and the local runtime both build
 * the table from this module, and every entity module (shared/adapters/dynamo/<entity>.ts) builds its
 * keys against these attribute names. Keys are generic on purpose (pk/sk/gsiNpk/gsiNsk): what they
 * hold is decided per entity, next to the code that reads it.
 */

export const keyAttributes = {
  partition: 'pk',
  sort: 'sk',
} as const;

export const globalIndexes = [
  { name: 'gsi1', partition: 'gsi1pk', sort: 'gsi1sk' },
  { name: 'gsi2', partition: 'gsi2pk', sort: 'gsi2sk' },
] as const;

export type IndexName = (typeof globalIndexes)[number]['name'];

/** Epoch seconds after which DynamoDB may delete the item (readers also filter expired items). */
export const ttlAttribute = 'expires_at';

/** The table definition in CreateTable terms, used by the local runtime. */
export function createTableInput(tableName: string) {
  const stringAttr = (name: string) => ({ AttributeName: name, AttributeType: 'S' as const });
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [
      stringAttr(keyAttributes.partition),
      stringAttr(keyAttributes.sort),
      ...globalIndexes.flatMap((index) => [stringAttr(index.partition), stringAttr(index.sort)]),
    ],
    KeySchema: [
      { AttributeName: keyAttributes.partition, KeyType: 'HASH' as const },
      { AttributeName: keyAttributes.sort, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: globalIndexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partition, KeyType: 'HASH' as const },
        { AttributeName: index.sort, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    })),
  };
}
