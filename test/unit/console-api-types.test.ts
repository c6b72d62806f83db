/**
 * The console's API types are the OpenAPI document's: the committed file is exactly what the
 * document generates now, so a schema changed without regenerating them (`npm run typecheck` does)
 * fails here before the console can drift from the service.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiTypes, apiTypesFile } from '../../console/generate-api-types.ts';

describe("the console's API types", () => {
  it('are what the OpenAPI document generates', async () => {
    expect(readFileSync(apiTypesFile, 'utf8')).toBe(await apiTypes());
  });
});
