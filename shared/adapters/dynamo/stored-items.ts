/**
 * Reading an item checks its shape. Each entity module declares, next to its key layout, the schema
 * of what its items hold: one entry per field of the domain type, optional fields included, so a
 * field added to the type and not to the schema does not compile. Every item read goes through it:
 * an item that does not match fails with an error naming the entity, the field and the item's key,
 * instead of handing `undefined` on to the domain. Parsing builds the domain value, without the
 * table's own attributes (pk, sk, index keys, entity), in one pass: one copy per item read, as the
 * hand-written readers made before.
 */
import * as z from 'zod';

/** An item as the document client answers it: attributes of any type, to be parsed. */
export type StoredItem = Record<string, unknown>;

/** The schema of every field of `T`; optional fields too (an absent attribute reads as they say). */
export type AttributesOf<T> = { [K in keyof T]-?: z.ZodType<T[K]> };

export class MalformedItemError extends Error {
  override readonly name = 'MalformedItemError';

  constructor(
    readonly entity: string,
    readonly field: string,
    readonly key: string,
    problem: string,
  ) {
    super(`A stored ${entity} item (${key}) is malformed: ${field}: ${problem}`);
  }
}

/** A value inside an item (an object attribute) with every field of `T`, parsed as the item is. */
export const objectOf = <T>(attributes: AttributesOf<T>) => z.object(attributes);

/** A string set attribute (SS), as the document client reads it: a Set of strings. */
export const stringSet = z.custom<Set<string>>(
  (value) => value instanceof Set && [...value].every((member) => typeof member === 'string'),
  'Expected a set of strings',
);

/** A nullable field that items written before it existed do not hold: absent reads as null. */
export const orNull = <T>(schema: z.ZodType<T>) => schema.nullable().default(null);

/**
 * The reader of one entity's items: the item parsed into the domain value, or a MalformedItemError
 * naming the entity and the first field that does not match. Values are never shown in the error
 * (an item may hold a hash or a sealed secret); the key says which item to look at. What it reads
 * is `T` field by field (AttributesOf), and its callers' own types check it is `T` as a whole.
 */
export function itemReader<T>(entity: string, attributes: AttributesOf<T>) {
  return shapeReader(entity, attributes);
}

/** A reader for an item whose value is not one domain type (a claim, a pointer, a lease). */
export function shapeReader<S extends z.ZodRawShape>(entity: string, shape: S) {
  const schema = z.object(shape);
  return (item: StoredItem): z.output<typeof schema> => {
    const parsed = schema.safeParse(item);
    if (parsed.success) return parsed.data;
    throw malformed(entity, item, parsed.error);
  };
}

function malformed(entity: string, item: StoredItem, error: z.ZodError): MalformedItemError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || '(the item)';
  const key = `${String(item.pk ?? '?')} / ${String(item.sk ?? '?')}`;
  // zod's messages name types and allowed values, never the value found.
  return new MalformedItemError(entity, field, key, issue?.message ?? 'does not match');
}
