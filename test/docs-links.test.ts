// The repository stands alone: every reference in it resolves inside it. Over the tracked files
// (`git ls-files`):
// 1. no file but CHANGELOG.md names the design folders that lived beside the repository;
// 2. every relative Markdown link resolves to a tracked file, and to a heading of it when it has
//    an #anchor (GitHub's slugs);
// 3. every comment reference such as README "Quick start" or docs/operations.md "Configuration"
//    in the code names a file that exists and a heading that exists in it.
// Each check is one test per top-level folder, so a failure says whose files to fix.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
  .split('\0')
  .filter((file) => file !== '' && existsSync(path.join(ROOT, file)));
const trackedFiles = new Set(tracked);
const trackedDirs = new Set(
  tracked.flatMap((file) =>
    file
      .split('/')
      .slice(0, -1)
      .map((_, n, dirs) => dirs.slice(0, n + 1).join('/')),
  ),
);

const texts = new Map<string, string | undefined>();
/** A tracked file's text, or undefined for a binary file. */
function textOf(file: string): string | undefined {
  if (!texts.has(file)) {
    const bytes = readFileSync(path.join(ROOT, file));
    texts.set(file, bytes.includes(0) ? undefined : bytes.toString('utf8'));
  }
  return texts.get(file);
}

/** The top-level folder a file belongs to, or "(root)". */
const areaOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '(root)');
const areas = (files: string[]) => [...new Set(files.map(areaOf))].sort();
const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

// ---- headings and their anchors ---------------------------------------------------------------

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  const text = heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: their alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
    .replace(/<[^>]+>/g, '') // HTML tags
    .replace(/`/g, '')
    .replace(/\*|~~/g, '')
    .replace(/(^|\W)_([^_]+)_(?=\W|$)/g, '$1$2'); // _emphasis_, not snake_case
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Lines of a Markdown text outside fenced code blocks (fenced lines become empty). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const opens = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opens && opens[1]![0] === fence[0] && opens[1]!.length >= fence.length) fence = undefined;
      return '';
    }
    if (opens) {
      fence = opens[1];
      return '';
    }
    return line;
  });
}

const anchorCache = new Map<string, Set<string>>();
/** Every anchor a tracked Markdown file has: its headings' slugs (duplicates numbered) and HTML ids. */
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors) return anchors;
  anchors = new Set();
  const seen = new Map<string, number>();
  const add = (heading: string) => {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors!.add(n === 0 ? base : `${base}-${n}`);
  };
  const lines = proseLines(textOf(file) ?? '');
  lines.forEach((line, n) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) add(atx[1] ?? '');
    const previous = lines[n - 1] ?? '';
    // A setext heading: a paragraph line underlined with = or -.
    if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && /^ {0,3}[^\s#|>*+-]/.test(previous)) add(previous);
    for (const html of line.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors!.add(html[1]!);
  });
  anchorCache.set(file, anchors);
  return anchors;
}

// ---- 1. nothing outside the repository ----------------------------------------------------------

// Spelled in parts so that this file does not name them itself.
const OUTSIDE = [['..', 'shared'].join('/'), ['shared', 'spec'].join('/'), ['shared', 'design'].join('/')];

function outsideReferences(file: string): string[] {
  const text = textOf(file);
  if (text === undefined) return [];
  return text.split('\n').flatMap((line, n) => {
    const named = OUTSIDE.filter((p) => line.includes(p));
    return named.length ? [`${file}:${n + 1}: names ${named.join(', ')}`] : [];
  });
}

describe('no file refers to folders outside the repository (CHANGELOG.md may tell history)', () => {
  const files = tracked.filter((f) => f !== 'CHANGELOG.md');
  it.each(areas(files))('%s', (area) => {
    expect(files.filter((f) => areaOf(f) === area).flatMap(outsideReferences)).toEqual([]);
  });
});

// ---- 2. Markdown links ------------------------------------------------------------------------

/** The link targets of a Markdown text, with their lines: inline links, images, definitions. */
function linkTargets(markdown: string): Array<{ target: string; line: number }> {
  const found: Array<{ target: string; line: number }> = [];
  proseLines(markdown).forEach((raw, n) => {
    const line = raw.replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length));
    for (const m of line.matchAll(/\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
      found.push({ target: m[1]!.replace(/^<|>$/g, ''), line: n + 1 });
    }
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (definition) found.push({ target: definition[1]!.replace(/^<|>$/g, ''), line: n + 1 });
  });
  return found;
}

/** What is wrong with one relative link of `file`, or undefined when it resolves. */
function linkProblem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined; // not relative
  const hash = target.indexOf('#');
  const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  let resolved = file;
  if (pathPart !== '') {
    const absolute = pathPart.startsWith('/')
      ? path.join(ROOT, pathPart)
      : path.resolve(ROOT, path.dirname(file), pathPart);
    resolved = path.relative(ROOT, absolute).split(path.sep).join('/');
    if (resolved.startsWith('..') || path.isAbsolute(resolved)) return 'leaves the repository';
    if (resolved === '') resolved = '.';
    if (!trackedFiles.has(resolved) && !trackedDirs.has(resolved) && resolved !== '.') {
      return `${resolved} is not a file of the repository`;
    }
  }
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) {
    return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : `#${anchor}: only a Markdown file has headings`;
  }
  return anchorsOf(resolved).has(anchor) ? undefined : `#${anchor}: no such heading in ${resolved}`;
}

describe('every relative link in the Markdown files resolves inside the repository', () => {
  const markdown = tracked.filter((f) => f.endsWith('.md'));
  it.each(areas(markdown))('%s', (area) => {
    const problems = markdown
      .filter((f) => areaOf(f) === area)
      .flatMap((file) =>
        linkTargets(textOf(file) ?? '').flatMap(({ target, line }) => {
          const problem = linkProblem(file, target);
          return problem ? [`${file}:${line}: (${target}) ${problem}`] : [];
        }),
      );
    expect(problems).toEqual([]);
  });
});

// ---- 3. references in comments ----------------------------------------------------------------

/**
 * A reference to a file and its headings: README "A" (also README's "A", README "A" and "B",
 * README "A", "B", test/README "A") and docs/x.md "A".
 */
const REFERENCE =
  /(?<![\w./-])((?:[\w-]+\/)*README(?:\.md)?|docs\/[\w.-]+\.md)\b((?:'s)?(?:[ \t]*(?:,[ \t]*and|,|and)?[ \t]*"[^"\n]+")*)/g;

/** The file a reference names: a README is README.md in its folder. */
const referencedFile = (name: string) => name.replace(/README(\.md)?$/, 'README.md');

function commentReferences(file: string): string[] {
  const text = textOf(file);
  if (text === undefined) return [];
  const problems: string[] = [];
  for (const m of text.matchAll(REFERENCE)) {
    const target = referencedFile(m[1]!);
    const where = `${file}:${lineAt(text, m.index)}`;
    if (!trackedFiles.has(target)) {
      problems.push(`${where}: ${m[1]} is not a file of the repository`);
      continue;
    }
    for (const [, heading] of m[2]!.matchAll(/"([^"\n]+)"/g)) {
      if (!anchorsOf(target).has(slug(heading!)))
        problems.push(`${where}: no heading "${heading}" in ${target}`);
    }
  }
  return problems;
}

describe('every README "Heading" or docs/<file>.md "Heading" in the code names a heading that exists', () => {
  // This file's own examples are not references; an applied migration is history, its bytes kept.
  const code = tracked.filter(
    (f) =>
      !f.endsWith('.md') &&
      f !== 'package-lock.json' &&
      f !== 'test/docs-links.test.ts' &&
      !f.startsWith('src/db/migrations/'),
  );
  it.each(areas(code))('%s', (area) => {
    expect(code.filter((f) => areaOf(f) === area).flatMap(commentReferences)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('make anchors as GitHub does', () => {
    expect(slug('Remote agents (MCP over HTTP and OAuth 2.1)')).toBe(
      'remote-agents-mcp-over-http-and-oauth-21',
    );
    expect(slug('The `portage` command')).toBe('the-portage-command');
    expect(slug('Checkout, payment and orders')).toBe('checkout-payment-and-orders');
    expect(slug('Over HTTP: `/mcp`')).toBe('over-http-mcp');
    expect(slug('snake_case and _emphasis_')).toBe('snake_case-and-emphasis');
  });

  it('find links, and leave code alone', () => {
    const text =
      'See [a](docs/api.md#errors "t") and `[b](nowhere.md)`.\n```\n[c](gone.md)\n```\n[d]: ./x.md';
    expect(linkTargets(text)).toEqual([
      { target: 'docs/api.md#errors', line: 1 },
      { target: './x.md', line: 5 },
    ]);
  });

  it('read every form of a comment reference', () => {
    const text =
      '(README "A" and "B"; README\'s "C", "D") docs/x.md "E", see test/README "F"; src/docs/y.md "G"';
    const all = [...text.matchAll(REFERENCE)];
    expect(
      all.map((m) => [referencedFile(m[1]!), [...m[2]!.matchAll(/"([^"]+)"/g)].map((q) => q[1])]),
    ).toEqual([
      ['README.md', ['A', 'B']],
      ['README.md', ['C', 'D']],
      ['docs/x.md', ['E']],
      ['test/README.md', ['F']],
    ]);
  });
});
