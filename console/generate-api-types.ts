/**
 * The console's API types, generated from the service's own OpenAPI document (shared/http/openapi.ts,
 * built from the route table and the zod schemas the handlers parse with) by openapi-typescript, into
 * console/src/api-types.ts. The console declares no API shape of its own: a field renamed or removed
 * in a schema fails the console's typecheck wherever it reads it. `npm run typecheck` regenerates the
 * file before checking the console, and a unit test fails when the committed file is not what the
 * document generates.
 *
 *   npx tsx console/generate-api-types.ts    writes console/src/api-types.ts (when it changed)
 *
 * openapi-typescript 6 writes the types as text; its version 7 builds them with TypeScript 5's
 * compiler API, which the TypeScript this project compiles with (7) no longer has.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { openApiDocument } from '../shared/http/openapi.ts';
import { routes } from '../shared/routes.ts';

export const apiTypesFile = path.join(path.dirname(fileURLToPath(import.meta.url)), 'src/api-types.ts');

const header = `/**
 * The API's types, generated from its OpenAPI document (shared/http/openapi.ts) by
 * console/generate-api-types.ts: do not edit. \`npm run typecheck\` regenerates it.
 */

`;

export async function apiTypes(): Promise<string> {
  // The document as GET /openapi.json serves it: JSON, which openapi-typescript reads as an OpenAPI3.
  const document: OpenAPI3 = JSON.parse(JSON.stringify(openApiDocument(routes)));
  return openapiTS(document, {
    commentHeader: header,
    silent: true,
    // A schema that holds itself (JsonValue) reads as a type alias: as a property of the document's
    // components, TypeScript takes it for a circular annotation.
    inject: 'type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\n',
    transform: (_, { path }) => (path === '#/components/schemas/JsonValue' ? 'JsonValue' : undefined),
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const generated = await apiTypes();
  let current = '';
  try {
    current = readFileSync(apiTypesFile, 'utf8');
  } catch {
    // Not generated yet.
  }
  if (generated !== current) {
    writeFileSync(apiTypesFile, generated);
    process.stdout.write(
      `console: ${path.relative(process.cwd(), apiTypesFile)} regenerated from the OpenAPI document\n`,
    );
  }
}
