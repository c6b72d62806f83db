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

/**
 * An item that does not match its entity's schema: the entity, the first field that does not match
 * (its path inside the item) and the item's key. zod's messages name types and allowed values,
 * never the value found: an item may hold a hash or a sealed secret.
 */
export class MalformedItemError extends Error {
  override readonly name = 'MalformedItemError';
  readonly field: string;
  readonly key: string;

  constructor(
    readonly entity: string,
    item: StoredItem,
    error: z.ZodError,
  ) {
    const [issue] = error.issues;
    const field = issue?.path.map(String).join('.') || '(the item)';
    const key = `${item.pk} / ${item.sk}`;
    super(`A stored ${entity} item (${key}) is malformed: ${field}: ${issue?.message}`);
    this.field = field;
    this.key = key;
  }
}

/** A value inside an item (an object attribute) with every field of `T`, parsed as the item is. */
export const objectOf = <T>(attributes: AttributesOf<T>) => z.object(attributes);

/** A string set attribute (SS), as the document client reads it: a Set of strings. */
export const stringSet = () =>
  z.custom<Set<string>>(
    (value) => value instanceof Set && [...value].every((member) => typeof member === 'string'),
    'Expected a set of strings',
  );

/** A number set attribute (NS), as the document client reads it: a Set of numbers. */
export const numberSet = () =>
  z.custom<Set<number>>(
    (value) => value instanceof Set && [...value].every((member) => typeof member === 'number'),
    'Expected a set of numbers',
  );

/** A nullable field that items written before it existed do not hold: absent reads as null. */
export const orNull = <T>(schema: z.ZodType<T>) => schema.nullable().default(null);

/** A reader of items of this shape: a claim, a pointer, a lease, or (itemReader) one domain type. */
export function shapeReader<S extends z.ZodRawShape>(entity: string, shape: () => S) {
  const build = () => z.object(shape());
  let schema: ReturnType<typeof build> | undefined;
  return (item: StoredItem): z.output<ReturnType<typeof build>> => {
    schema ??= build();
    const parsed = schema.safeParse(item);
    if (parsed.success) return parsed.data;
    throw new MalformedItemError(entity, item, parsed.error);
  };
}

/**
 * The reader of one entity's items: the item parsed into the domain value, or a MalformedItemError
 * naming the entity, the first field that does not match and the item's key. What it reads
 * is `T` field by field (AttributesOf), and its callers' own types check it is `T` as a whole.
 *
 * The schema is built at the first read, and making a reader has no side effects: each one is
 * marked pure (esbuild's `@__PURE__` annotation), so a bundle drops the readers its function never
 * calls; importing an entity module for its keys or its writes costs no schema, and the ingest and
 * API functions keep their size.
 */
export const itemReader: <T>(
  entity: string,
  attributes: () => AttributesOf<T>,
) => (item: StoredItem) => z.output<z.ZodObject<AttributesOf<T>>> = shapeReader;

/** Items as stored, every attribute unread: for tools and tests that look at the raw attributes. */
export const asStored = (item: StoredItem): StoredItem => item;
