/**
 * The README, the pages under docs/ and bench/README.md link to each other and name the repository's
 * files; a page moved, a heading reworded or a module renamed must not leave a reader at a dead end.
 * Every relative link must reach a file, every `#anchor` a heading of its page (GitHub's anchors:
 * lowercase, spaces to `-`, punctuation dropped, a repeated heading numbered `-1`, `-2`), and every
 * repository path written in code (`shared/topology.ts`) must exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');

/** The documentation, as paths relative to the repository's root. */
function documentationFiles(): string[] {
  const docs = readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', 'bench/README.md', ...docs].sort();
}

/** Markdown without its fenced code blocks (a `#` or `[x](y)` there is neither heading nor link). */
function withoutFences(markdown: string): string {
  return markdown.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '');
}

/** GitHub's anchor for a heading's text. */
function githubAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = githubAnchor(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  target: string;
  line: number;
}

/** Inline links `[text](target)` and definitions `[label]: target`, outside code. */
function linksOf(markdown: string): Link[] {
  const text = withoutFences(markdown).replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const links: Link[] = [];
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
    links.push({ target: match[1] ?? '', line: lineOf(match.index) });
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm))
    links.push({ target: match[1] ?? '', line: lineOf(match.index) });
  return links;
}

/** A reader of the repository: files by their path relative to the root. */
interface Tree {
  read(file: string): string | undefined;
  exists(file: string): boolean;
}

const repository: Tree = {
  read: (file) => (existsSync(path.join(root, file)) ? readFileSync(path.join(root, file), 'utf8') : undefined),
  exists: (file) => existsSync(path.join(root, file)),
};

/** Every relative link of `file` whose file or anchor does not exist, as `file:line → target (why)`. */
function brokenLinks(tree: Tree, file: string): string[] {
  const markdown = tree.read(file) ?? '';
  const broken: string[] = [];
  for (const { target, line } of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not a file of ours
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const decoded = decodeURIComponent(pathPart);
    const resolved = decoded === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decoded));
    const where = `${file}:${line} → ${target}`;
    if (resolved.startsWith('..') || path.posix.isAbsolute(decoded)) {
      broken.push(`${where} (outside the repository)`);
      continue;
    }
    if (!tree.exists(resolved)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor === undefined) continue;
    const page = resolved.endsWith('.md') ? tree.read(resolved) : undefined;
    if (page === undefined || !anchorsOf(page).has(decodeURIComponent(anchor)))
      broken.push(`${where} (no heading with that anchor in ${resolved})`);
  }
  return broken;
}

/** Repository paths written in code spans (`shared/topology.ts`) that name no file or folder. */
function missingPaths(tree: Tree, file: string): string[] {
  const text = withoutFences(tree.read(file) ?? '');
  const missing: string[] = [];
  for (const match of text.matchAll(/`((?:bench|bin|console|functions|lib|local|shared|test)\/[^`\s]*)`/g)) {
    const named = match[1] ?? '';
    if (/[<>*{}…]/.test(named)) continue; // a pattern such as functions/<area>/<name>.ts
    if (!tree.exists(named.replace(/\/$/, ''))) missing.push(`${file} → ${named}`);
  }
  return missing;
}

/** A tree held in memory, for checking the checker. */
function treeOf(files: Record<string, string>): Tree {
  return {
    read: (file) => files[file],
    exists: (file) => file in files || Object.keys(files).some((name) => name.startsWith(`${file}/`)),
  };
}

describe('the documentation', () => {
  const files = documentationFiles();

  it('is the README, bench/README.md and the pages under docs/, with an index', () => {
    expect(files).toContain('docs/README.md');
    for (const file of files) expect(statSync(path.join(root, file)).isFile()).toBe(true);
  });

  it('links only to files and headings that exist', () => {
    expect(files.flatMap((file) => brokenLinks(repository, file))).toEqual([]);
  });

  it('names only repository paths that exist', () => {
    expect(files.flatMap((file) => missingPaths(repository, file))).toEqual([]);
  });

  it('keeps the README to 250 lines', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});

describe('the link checker', () => {
  it('makes the anchors GitHub makes', () => {
    // As github.com renders these headings (github-slugger's rules).
    expect(githubAnchor('Local mode: stops, crashes and backups')).toBe('local-mode-stops-crashes-and-backups');
    expect(githubAnchor("Commits: the store decides, other engines' commits are kept")).toBe(
      'commits-the-store-decides-other-engines-commits-are-kept',
    );
    expect(githubAnchor('What `DATA_DIR` holds')).toBe('what-data_dir-holds');
    expect(githubAnchor('Context values (AWS)')).toBe('context-values-aws');
    expect(githubAnchor('error codes → HTTP statuses')).toBe('error-codes--http-statuses');
    expect(githubAnchor('See [the guide](x.md) first')).toBe('see-the-guide-first');
    expect(githubAnchor('Zipf 1.0, p99')).toBe('zipf-10-p99');
  });

  const tree = treeOf({
    'README.md': [
      '# Title',
      '## Sending a webhook',
      '## Sending a webhook',
      'See [ingest](docs/ingest.md), [its refusals](docs/ingest.md#what-ingest-refuses) and [below](#sending-a-webhook-1).',
      'Not a link in code: `[x](docs/gone.md)`, nor in a fence:',
      '```md',
      '[y](docs/gone.md)',
      '```',
      'The site: <https://example.com>, [npm](https://www.npmjs.com/package/saxes). The map: `shared/topology.ts`.',
    ].join('\n'),
    'docs/ingest.md': '# Ingest\n\n## What ingest refuses\n\nBack to the [README](../README.md#title).\n',
    'shared/topology.ts': '',
  });

  it('passes links to files and headings that exist, and ignores code and other sites', () => {
    expect(brokenLinks(tree, 'README.md')).toEqual([]);
    expect(brokenLinks(tree, 'docs/ingest.md')).toEqual([]);
    expect(missingPaths(tree, 'README.md')).toEqual([]);
  });

  it('reports a missing file, a missing anchor, a link out of the repository and a path that is gone', () => {
    const broken = treeOf({
      'README.md': [
        '# Title',
        'A [moved page](docs/local.md) and a [reworded heading](docs/ingest.md#what-ingest-rejects),',
        'a [local anchor](#no-such-heading), [out](../elsewhere.md),',
        'and a map entry `shared/domain/delta/commit.ts`.',
      ].join('\n'),
      'docs/ingest.md': '# Ingest\n\n## What ingest refuses\n',
    });
    expect(brokenLinks(broken, 'README.md')).toEqual([
      'README.md:2 → docs/local.md (no such file)',
      'README.md:2 → docs/ingest.md#what-ingest-rejects (no heading with that anchor in docs/ingest.md)',
      'README.md:3 → #no-such-heading (no heading with that anchor in README.md)',
      'README.md:3 → ../elsewhere.md (outside the repository)',
    ]);
    expect(missingPaths(broken, 'README.md')).toEqual(['README.md → shared/domain/delta/commit.ts']);
  });
});
