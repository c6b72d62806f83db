import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { notFoundRoute, type RouteSpec, routeGroups, routeKeyParts, routes } from '#shared/routes.ts';
import { consumers, schedules } from '#shared/topology.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
const entries = Object.entries(routes) as [string, RouteSpec][];

describe('the route table', () => {
  it.each(entries)('%s names a handler file that exports `handler` and matches its route key', (key, spec) => {
    const file = path.join(root, spec.entry);
    expect(existsSync(file)).toBe(true);
    const source = readFileSync(file, 'utf8');
    expect(source).toMatch(/export (const|async function) handler\b/);
    if (spec.auth !== 'ingestToken') expect(source).toContain(`'${key}'`);
  });

  it('gives every API-key route a permission and no other route one', () => {
    for (const [key, spec] of entries) {
      expect({ key, hasPermission: Boolean(spec.permission) }).toEqual({ key, hasPermission: spec.auth === 'apiKey' });
    }
  });

  it('merges route groups that share no key, so none hides another', () => {
    const keys = Object.values(routeGroups).flatMap((group) => Object.keys(group));
    expect(keys.length).toBe(entries.length);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('uses each handler file for one route only', () => {
    const files = entries.map(([, spec]) => spec.entry);
    expect(new Set(files).size).toBe(files.length);
  });

  it('declares a params schema for exactly the parameters in each path', () => {
    for (const [key, spec] of entries) {
      const names = [...routeKeyParts(key).path.matchAll(/\{(\w+)\+?\}/g)].map((match) => match[1]).sort();
      const declared = spec.params ? Object.keys(spec.params.shape).sort() : [];
      expect({ key, params: declared }).toEqual({ key, params: names });
    }
  });

  it('lets exactly the routes that page with a cursor hold the cursor key', () => {
    for (const [key, spec] of entries) {
      const pages = Boolean(spec.query && 'cursor' in spec.query.shape);
      expect({ key, cursorKey: Boolean(spec.access.cursorKey) }).toEqual({ key, cursorKey: pages });
    }
  });

  it('keeps the not-found, consumer and schedule handlers on disk too', () => {
    const others = [
      notFoundRoute.entry,
      ...Object.values(consumers).map((c) => c.entry),
      ...Object.values(schedules).map((s) => s.entry),
    ];
    for (const entry of others) expect(existsSync(path.join(root, entry))).toBe(true);
  });
});
