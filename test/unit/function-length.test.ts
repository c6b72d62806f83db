/**
 * No function of shared/ or delta/ runs past 100 lines: a longer one is split by step or by kind.
 * Each file is parsed as TypeScript (oxc's parser, as Vite ships it: TypeScript 7's own compiler
 * API is not a JavaScript library); every function declaration, method, function expression and
 * arrow function is measured from its first line to its last, and the offenders are named.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync } from 'vite';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const maxLines = 100;

function tsFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

type AstNode = { type: string; start: number; end: number; [field: string]: unknown };
const isNode = (value: unknown): value is AstNode =>
  typeof value === 'object' && value !== null && 'type' in value && typeof value.type === 'string';
const functionTypes = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** A function's name as a reader finds it: its own, or the variable, property or method it is assigned to. */
function nameOf(node: AstNode, parent: AstNode | undefined, text: string): string {
  const named = (key: unknown) => (isNode(key) ? text.slice(key.start, key.end) : null);
  return (
    named(node.id) ??
    (parent && ['VariableDeclarator'].includes(parent.type) ? named(parent.id) : null) ??
    (parent && ['MethodDefinition', 'Property', 'PropertyDefinition'].includes(parent.type)
      ? named(parent.key)
      : null) ??
    '(anonymous)'
  );
}

/** Every function of a source text longer than `limit` lines: `path:line name (n lines)`. */
function longFunctions(path: string, text: string, limit = maxLines): string[] {
  const parsed = parseSync(path, text, { lang: 'ts' });
  if (parsed.errors.length > 0) throw new Error(`${path} does not parse: ${parsed.errors[0]?.message}`);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  const found: string[] = [];
  const visit = (node: AstNode, parent: AstNode | undefined) => {
    if (functionTypes.has(node.type) && node.body) {
      const first = lineOf(node.start);
      const lines = lineOf(node.end) - first + 1;
      if (lines > limit) found.push(`${path}:${first} ${nameOf(node, parent, text)} (${lines} lines)`);
    }
    for (const value of Object.values(node))
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child, node);
  };
  if (isNode(parsed.program)) visit(parsed.program, undefined);
  return found;
}

describe('functions of shared/ and delta/', () => {
  it('finds a function past the limit, by name and line, and none within it', () => {
    const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `function short(): void {\n${body(100)}\n}`,
      `const long = (): void => {\n${body(101)}\n};`,
      `class C {\n  method(): void {\n${body(102)}\n  }\n}`,
    ].join('\n');
    expect(longFunctions('x.ts', text)).toEqual(['x.ts:101 long (101 lines)', 'x.ts:203 method (102 lines)']);
  });

  it(`are at most ${maxLines} lines each`, () => {
    const offenders = ['shared', 'delta']
      .flatMap((folder) => tsFiles(join(root, folder)))
      .flatMap((path) => longFunctions(relative(root, path), readFileSync(path, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
