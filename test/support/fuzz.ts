/**
 * Hostile requests generated from the OpenAPI document the service serves: for every operation, a
 * valid-looking baseline request and then one mutation at a time of every path parameter, query
 * parameter and body field (wrong types, empty and oversized strings, text that is long in UTF-8
 * bytes, ids that are not UUIDs, extra fields), and crafted cursors for every list. A new route is
 * fuzzed as soon as the document names it; nothing here knows a route.
 */
import { randomUUID } from 'node:crypto';

type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  format?: string;
  minLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
};

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: Record<string, string[]>[];
}

export interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface FuzzCase {
  method: string;
  /** The documented path, e.g. /api/tenants/{tenant_id}: failures are counted by it. */
  route: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** What was mutated, to reproduce a failure. */
  variant: string;
}

export interface FuzzContext {
  /** Values for parameters and fields by name (ids of real resources, a real wiki path…). */
  known: Record<string, string>;
  /** Optional query parameters a baseline carries when the operation takes them (the tenant scope). */
  scope: Record<string, string>;
  /** Headers every request carries (the API key; the ingest token on the ingest route). */
  headersFor(operation: Operation): Record<string, string>;
}

const longUtf8 = {
  euro: '€'.repeat(341),
  emoji: '😀'.repeat(256),
};

/** Strings that break naive code: empty, oversized, long in bytes, not UUIDs, traversal. */
const hostileStrings: [string, string][] = [
  ['empty', ''],
  ['oversized', 'a'.repeat(2100)],
  ['euro×341', longUtf8.euro],
  ['emoji×256', longUtf8.emoji],
  ['not a uuid', 'not-a-uuid'],
  ['dot-dot', '..'],
  ['control', 'a\u0000b\u0007'],
];

function resolve(document: OpenApi, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  while (current.$ref) {
    const name = current.$ref.replace('#/components/schemas/', '');
    current = document.components.schemas[name] ?? {};
  }
  return current;
}

/** The first branch of a union that is not null: the shape a baseline uses. */
function mainBranch(document: OpenApi, schema: Schema | undefined): Schema {
  const resolved = resolve(document, schema);
  const branches = resolved.oneOf ?? resolved.anyOf;
  if (!branches) return resolved;
  const chosen = branches.map((branch) => resolve(document, branch)).find((branch) => branch.type !== 'null');
  return mainBranch(document, chosen);
}

function typeOf(schema: Schema): string {
  return Array.isArray(schema.type) ? (schema.type.find((type) => type !== 'null') ?? 'string') : (schema.type ?? '');
}

/** A value the schema accepts, preferring known values by name (so requests reach real resources). */
export function example(document: OpenApi, schema: Schema | undefined, name: string, context: FuzzContext): unknown {
  const s = mainBranch(document, schema);
  if (name in context.known && (typeOf(s) === 'string' || s.format)) return context.known[name];
  if ('const' in s) return s.const;
  if (s.enum) return s.enum[0];
  switch (typeOf(s)) {
    case 'object':
      return Object.fromEntries(
        (s.required ?? []).map((key) => [key, example(document, s.properties?.[key], key, context)]),
      );
    case 'array':
      return (s.minItems ?? 0) > 0 ? [example(document, s.items, name, context)] : [];
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum ?? 0) + 1;
    case 'boolean':
      return true;
    default:
      if (s.format === 'uuid') return randomUUID();
      if (s.format === 'email') return `fuzz-${randomUUID().slice(0, 8)}@example.com`;
      return 'x'.repeat(Math.max(s.minLength ?? 1, 1));
  }
}

/** Every field of a body schema, nested objects and array items included (a bounded depth). */
function fieldsOf(document: OpenApi, schema: Schema | undefined, path: string[] = [], depth = 0) {
  const fields: { path: string[]; schema: Schema }[] = [];
  const s = mainBranch(document, schema);
  if (depth > 3) return fields;
  if (typeOf(s) === 'object') {
    for (const [key, property] of Object.entries(s.properties ?? {})) {
      fields.push({ path: [...path, key], schema: mainBranch(document, property) });
      fields.push(...fieldsOf(document, property, [...path, key], depth + 1));
    }
  } else if (typeOf(s) === 'array' && s.items) {
    fields.push({ path: [...path, '0'], schema: mainBranch(document, s.items) });
    fields.push(...fieldsOf(document, s.items, [...path, '0'], depth + 1));
  }
  return fields;
}

function withField(base: unknown, path: string[], value: unknown): unknown {
  const root = structuredClone(base ?? {}) as Record<string, unknown>;
  let node: Record<string, unknown> = root;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = /^\d+$/.test(path[i + 1] ?? '') ? [] : {};
    node = node[key] as Record<string, unknown>;
  });
  return root;
}

/** Wrong types and hostile values for one field, chosen by what the field expects. */
function fieldValues(schema: Schema): [string, unknown][] {
  const type = typeOf(schema);
  const wrongType: unknown =
    type === 'string'
      ? 12345
      : type === 'object'
        ? 'not-an-object'
        : type === 'array'
          ? { not: 'an array' }
          : type === 'boolean'
            ? 'yes'
            : 'twelve';
  const values: [string, unknown][] = [
    ['wrong type', wrongType],
    ['null', null],
    ['empty', ''],
    ['oversized', 'x'.repeat(10_000)],
    ['euro×341', longUtf8.euro],
    ['emoji×256', longUtf8.emoji],
  ];
  if (type === 'integer' || type === 'number') values.push(['negative', -1], ['huge', 1e308], ['fraction', 0.5]);
  if (schema.format === 'uuid') values.push(['not a uuid', 'not-a-uuid']);
  if (type === 'array') values.push(['many', Array.from({ length: 2000 }, () => 'x')]);
  return values;
}

function queryValues(schema: Schema): [string, string][] {
  const values: [string, string][] = [
    ['empty', ''],
    ['oversized', 'x'.repeat(5000)],
    ['euro×341', longUtf8.euro],
    ['emoji×256', longUtf8.emoji],
  ];
  const type = typeOf(schema);
  if (type === 'integer' || type === 'number')
    values.push(['not a number', 'abc'], ['negative', '-1'], ['huge', '1e309'], ['fraction', '1.5']);
  if (schema.format === 'uuid') values.push(['not a uuid', 'not-a-uuid'], ['unknown uuid', randomUUID()]);
  if (schema.enum) values.push(['not in enum', 'NotAValue']);
  return values;
}

/** Cursors no list issued, derived from real ones where there are any (tampered) and from other lists (foreign). */
export function craftedCursors(own: string | undefined, foreign: string[]): [string, string][] {
  const b64 = (value: unknown) =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const crafted: [string, string][] = [
    ['cursor empty', ''],
    ['cursor oversized', 'A'.repeat(5000)],
    ['cursor not base64', '!!!not-base64***'],
    ['cursor null', b64('null')],
    ['cursor array', b64([])],
    ['cursor number', b64('123')],
    ['cursor empty keys', b64({ pk: '', sk: '', gsi1pk: 'TENANTS', gsi1sk: '' })],
    [
      'cursor long keys',
      b64({ pk: 'x'.repeat(2100), sk: 'y'.repeat(1100), gsi1pk: 'TENANTS', gsi1sk: 'z'.repeat(1100) }),
    ],
  ];
  for (const [index, cursor] of foreign.slice(0, 2).entries()) crafted.push([`cursor foreign ${index}`, cursor]);
  const base = own ?? foreign[0];
  if (!base) return crafted;
  crafted.push([
    'cursor flipped character',
    `${base.slice(0, base.length >> 1)}${base[base.length >> 1] === 'A' ? 'B' : 'A'}${base.slice((base.length >> 1) + 1)}`,
  ]);
  crafted.push(['cursor truncated', base.slice(0, -4)]);
  // The readable part of a cursor (the whole of it, or one of its dot-separated parts) is rewritten
  // and put back in place, the rest (a signature, say) kept as it was.
  const parts = base.split('.');
  const readable = parts.findIndex((part) => {
    try {
      JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
      return true;
    } catch {
      return false;
    }
  });
  const rewritten = (value: unknown) => parts.map((part, i) => (i === readable ? b64(value) : part)).join('.');
  const decoded: unknown =
    readable < 0 ? undefined : JSON.parse(Buffer.from(parts[readable] as string, 'base64url').toString('utf8'));
  if (decoded && typeof decoded === 'object' && !Array.isArray(decoded)) {
    const object = decoded as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      crafted.push([`cursor ${key} emptied`, rewritten({ ...object, [key]: '' })]);
      crafted.push([`cursor ${key} oversized`, rewritten({ ...object, [key]: 'x'.repeat(1100) })]);
      crafted.push([`cursor ${key} not a string`, rewritten({ ...object, [key]: 7 })]);
    }
    crafted.push(['cursor extra key', rewritten({ ...object, extra: 'x' })]);
  } else {
    crafted.push(['cursor value changed', rewritten(-1)], ['cursor huge value', rewritten('9'.repeat(400))]);
  }
  return crafted;
}

function encodeSegment(value: string): string {
  // A wiki path keeps its slashes; a '..' segment goes out as is (the front must refuse it, not fetch).
  return value.split('/').map(encodeURIComponent).join('/');
}

/**
 * Every hostile case for every operation of the document. `cursors` holds, per list operation
 * (method and path), a cursor it issued, when the list had a second page.
 */
export function fuzzCases(document: OpenApi, context: FuzzContext, cursors: Map<string, string>): FuzzCase[] {
  const cases: FuzzCase[] = [];
  for (const [route, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? [];
      const pathParams = parameters.filter((parameter) => parameter.in === 'path');
      const queryParams = parameters.filter((parameter) => parameter.in === 'query');
      const bodySchema = operation.requestBody?.content['application/json']?.schema;
      const pathValues = Object.fromEntries(
        pathParams.map((parameter) => [
          parameter.name,
          String(example(document, parameter.schema, parameter.name, context)),
        ]),
      );
      const queryBase: Record<string, string> = {};
      for (const parameter of queryParams) {
        if (parameter.required) {
          queryBase[parameter.name] = String(example(document, parameter.schema, parameter.name, context));
        } else if (parameter.name in context.scope) {
          queryBase[parameter.name] = context.scope[parameter.name] as string;
        }
      }
      const bodyBase = bodySchema ? example(document, bodySchema, '', context) : undefined;
      const headers = context.headersFor(operation);

      const build = (
        variant: string,
        changes: {
          path?: Record<string, string>;
          query?: Record<string, string>;
          rawQuery?: string;
          body?: string | Buffer | null;
          headers?: Record<string, string>;
        },
      ) => {
        const values = { ...pathValues, ...changes.path };
        const path = route.replace(/\{(\w+)\}/g, (_, name: string) => encodeSegment(values[name] ?? ''));
        const query = new URLSearchParams({ ...queryBase, ...changes.query }).toString();
        const search = [query, changes.rawQuery].filter(Boolean).join('&');
        const body =
          changes.body === null
            ? undefined
            : (changes.body ?? (bodyBase === undefined ? undefined : JSON.stringify(bodyBase)));
        cases.push({
          method: method.toUpperCase(),
          route,
          url: search ? `${path}?${search}` : path,
          headers: {
            ...headers,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...changes.headers,
          },
          body,
          variant,
        });
      };

      for (const parameter of pathParams) {
        for (const [label, value] of hostileStrings)
          build(`path ${parameter.name}: ${label}`, { path: { [parameter.name]: value } });
        build(`path ${parameter.name}: unknown uuid`, { path: { [parameter.name]: randomUUID() } });
      }
      for (const parameter of queryParams) {
        const values =
          parameter.name === 'cursor'
            ? craftedCursors(
                cursors.get(`${method} ${route}`),
                [...cursors].filter(([key]) => key !== `${method} ${route}`).map(([, cursor]) => cursor),
              )
            : queryValues(parameter.schema).map(([label, value]): [string, string] => [
                `query ${parameter.name}: ${label}`,
                value,
              ]);
        for (const [label, value] of values) build(label, { query: { [parameter.name]: value } });
      }
      build('query: unknown parameter', { query: { unexpected_parameter: 'x' } });
      build('query: repeated parameter', { rawQuery: 'limit=1&limit=2' });

      if (bodySchema) {
        for (const field of fieldsOf(document, bodySchema)) {
          for (const [label, value] of fieldValues(field.schema)) {
            build(`body ${field.path.join('.')}: ${label}`, {
              body: JSON.stringify(withField(bodyBase, field.path, value)),
            });
          }
        }
        const extra = {
          ...(bodyBase as object),
          unexpected_field: 'x',
          tenant_id_: 1,
          role: 'PlatformAdmin',
          status: 'Active',
        };
        build('body: extra fields', { body: JSON.stringify(extra) });
        build('body: empty object', { body: '{}' });
        build('body: array', { body: '[]' });
        build('body: null', { body: 'null' });
        build('body: not JSON', { body: '{"unterminated' });
        build('body: not UTF-8', { body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) });
        build('body: text/plain', { headers: { 'content-type': 'text/plain' } });
        build('body: none', { body: null });
      } else if (method !== 'get') {
        build('body: unexpected', { body: JSON.stringify({ unexpected_field: 'x' }) });
      }
    }
  }
  return cases;
}
