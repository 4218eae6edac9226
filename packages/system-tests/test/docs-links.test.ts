import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// The README and the pages under docs/ point at one another, at the ADRs and at the API descriptions. A page
// renamed, split or removed must not leave a link behind, and nothing may point outside the repository.
const ROOT = join(import.meta.dirname, '..', '..', '..');
const ADR_FOLDER = join(ROOT, 'docs', 'adr');

function markdownPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
  return ['README.md', ...docs.map((file) => join('docs', file))].sort();
}

/** The text outside fenced code blocks and code spans, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every link target: inline links and images (`[text](target "title")`) and reference definitions. */
function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const references = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return [...inline, ...references];
}

/** GitHub's anchor for each heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why a relative link from `page` to `target` does not resolve, or undefined when it does. */
function brokenBecause(page: string, target: string): string | undefined {
  if (target.startsWith('/')) return 'is absolute; say it relative to the page';
  const [path = '', fragment] = decodeURI(target).split('#');
  const file = path ? resolve(dirname(join(ROOT, page)), path) : join(ROOT, page);
  if (relative(ROOT, file).startsWith('..')) return 'points outside the repository';
  if (!existsSync(file)) return 'names no file';
  const headings = fragment && file.endsWith('.md') ? anchorsOf(readFileSync(file, 'utf8')) : undefined;
  if (headings && !headings.has(fragment!)) return 'names no heading there';
  return undefined;
}

const isExternal = (target: string) => /^[a-z][a-z\d+.-]*:/i.test(target);

describe('the links in the README and docs/', () => {
  it('resolve: every relative link names a file inside the repository, and its heading when it names one', () => {
    const broken: string[] = [];
    for (const page of markdownPages()) {
      for (const target of linkTargets(readFileSync(join(ROOT, page), 'utf8')).filter((t) => !isExternal(t))) {
        const reason = brokenBecause(page, target);
        if (reason) broken.push(`${page}: ${target} ${reason}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('name only paths that exist when they name one under packages/, tools/ or docs/', () => {
    const missing: string[] = [];
    // docs/history/ keeps earlier runs verbatim, with the paths as they were then; its links still resolve (above).
    for (const page of markdownPages().filter((page) => !page.startsWith('docs/history/'))) {
      const named = readFileSync(join(ROOT, page), 'utf8').matchAll(/(?<![\w./-])(?:packages|tools|docs)\/[\w./@*-]+/g);
      for (const [match] of named) {
        const path = match.replace(/[.,:;]+$/, '');
        // A build's output (dist/) exists once built, not in a clone.
        const built = /(^|\/)dist(\/|$)/.test(path);
        if (!path.includes('*') && !built && !existsSync(join(ROOT, path))) missing.push(`${page}: ${path}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });
});

/** Each ADR by its number, with the paragraph that follows its title. */
function adrStatuses(): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const file of readdirSync(ADR_FOLDER).filter((name) => /^\d{4}-.*\.md$/.test(name))) {
    const [, paragraph = ''] = readFileSync(join(ADR_FOLDER, file), 'utf8').split(/\n\n/);
    statuses.set(file.slice(0, 4), paragraph);
  }
  return statuses;
}

describe('the ADRs', () => {
  it('each open with a status', () => {
    const without = [...adrStatuses()].filter(([, paragraph]) => !paragraph.startsWith('Status: ')).map(([n]) => n);
    expect(without).to.deep.equal([]);
  });

  it('name each other both ways in their statuses: the one that amends or supersedes, and the one it changes', () => {
    const statuses = adrStatuses();
    const linked = (n: string) => [...statuses.get(n)!.matchAll(/\]\((\d{4})-[^)]+\.md\)/g)].map((m) => m[1]!);
    const oneWay: string[] = [];
    for (const number of statuses.keys()) {
      for (const other of linked(number)) {
        if (!statuses.has(other) || !linked(other).includes(number)) oneWay.push(`${number} -> ${other}`);
      }
    }
    expect(oneWay).to.deep.equal([]);
  });

  it('cite by a relative path only files inside the repository', () => {
    const cited = readdirSync(ADR_FOLDER)
      .filter((name) => name.endsWith('.md'))
      .flatMap((name) => {
        const text = readFileSync(join(ADR_FOLDER, name), 'utf8');
        return [...text.matchAll(/(?:^|[\s(`'"])(\.\.\/[^\s)`'",;:]*)/g)].map((m) => [name, m[1]!]);
      });
    const elsewhere = cited.filter(([, path]) => {
      const file = resolve(ADR_FOLDER, path!.split('#')[0]!);
      return relative(ROOT, file).startsWith('..') || !existsSync(file);
    });
    expect(elsewhere.map(([name, path]) => `${name}: ${path}`)).to.deep.equal([]);
  });
});
