/**
 * The response contract: every response the integration suite receives is checked against the
 * OpenAPI document the service itself serves. A status the operation does not document, a body
 * that does not match its schema, or a media type other than the documented one fails the test
 * that made the request.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface MediaType {
  schema?: Record<string, unknown>;
}
interface Response {
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; description?: string }[];
  responses: Record<string, Response>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

export interface Observed {
  method: string;
  /** Path and query as requested. */
  url: string;
  status: number;
  contentType: string;
  text: string;
}

export interface Verdict {
  /** `operationId status`, or `unrouted 404`. */
  seen: string;
  violations: string[];
}

const components = 'openapi.json';

/** `#/components/schemas/X` refers into the document, which Ajv holds under its own id. */
function anchored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anchored);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' && item.startsWith('#/') ? `${components}${item}` : anchored(item),
    ]),
  );
}

export function contractChecker(document: Document) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ components: document.components }, components);
  const validators = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: Record<string, unknown>) => {
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(anchored(schema) as object);
      validators.set(key, validate);
    }
    return validate;
  };
  // The document's own paths: a parameter it says may contain `/` matches several segments.
  const matchers = Object.entries(document.paths).flatMap(([documentPath, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const greedy = new Set(
        (operation.parameters ?? [])
          .filter((parameter) => parameter.in === 'path' && parameter.description?.includes('May contain `/`'))
          .map((parameter) => parameter.name),
      );
      const pattern = documentPath
        .replace(/\./g, '\\.')
        .replace(/\{(\w+)\}/g, (_, name: string) => (greedy.has(name) ? '(.+)' : '([^/]+)'));
      return { method: method.toUpperCase(), regex: new RegExp(`^${pattern}$`), documentPath };
    }),
  );

  return function check(observed: Observed): Verdict {
    const pathname = new URL(observed.url, 'http://service').pathname;
    const match = matchers.find((candidate) => candidate.method === observed.method && candidate.regex.test(pathname));
    const what = `${observed.method} ${pathname} → ${observed.status}`;
    let body: unknown;
    try {
      body = observed.text && observed.contentType.includes('json') ? JSON.parse(observed.text) : observed.text;
    } catch {
      return { seen: 'unparsable', violations: [`${what}: a JSON content type with a body that is not JSON`] };
    }
    if (!match) {
      // No route: API Gateway's $default answers, always 404 in the error shape.
      if (observed.status !== 404)
        return { seen: 'unrouted', violations: [`${what}: matches no documented operation`] };
      const validate = validator('Error', { $ref: '#/components/schemas/Error' });
      return {
        seen: 'unrouted 404',
        violations: validate(body) ? [] : [`${what}: ${ajv.errorsText(validate.errors)}`],
      };
    }
    const operation = document.paths[match.documentPath]?.[observed.method.toLowerCase()];
    if (!operation) return { seen: 'undocumented', violations: [`${what}: the route is not in the document`] };
    const status = String(observed.status);
    const responseKey = status in operation.responses ? status : `${status[0]}XX`;
    const response = operation.responses[responseKey];
    const seen = `${operation.operationId} ${status}`;
    if (!response) return { seen, violations: [`${what}: status not documented for ${operation.operationId}`] };
    // A HEAD answer has headers only (HTTP sends no body, whatever the status).
    if (observed.method === 'HEAD') return { seen, violations: observed.text === '' ? [] : [`${what}: a body`] };
    if (!response.content) {
      return { seen, violations: observed.text === '' ? [] : [`${what}: documented without a body, answered one`] };
    }
    const baseType = (type: string) => type.split(';')[0]?.trim().toLowerCase();
    const documented = Object.entries(response.content) as [string, MediaType][];
    const matching = documented.find(([type]) => baseType(type) === baseType(observed.contentType));
    if (!matching) {
      const types = documented.map(([type]) => type).join(' or ');
      return { seen, violations: [`${what}: content type ${observed.contentType}, documented ${types}`] };
    }
    const [mediaType, media] = matching;
    if (!mediaType.includes('json') || !media.schema) return { seen, violations: [] };
    const validate = validator(`${operation.operationId} ${responseKey}`, media.schema);
    return { seen, violations: validate(body) ? [] : [`${what}: ${ajv.errorsText(validate.errors)}`] };
  };
}
