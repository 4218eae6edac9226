import { workspacePackageFolders } from '@platform/test-kit';
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// The workspace's layout (ADR 0009) and docs/architecture.md's account of it. These checks live with the stock
// service's tests because the docs' other checks do (doc-examples.test.ts).
const ROOT = join(import.meta.dirname, '..', '..', '..', '..');

const workspacePackages = () => workspacePackageFolders(ROOT);

/** The TypeScript files under a package's src/. */
function sources(folder: string): string[] {
  const src = join(ROOT, folder, 'src');
  if (!existsSync(src)) return [];
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.split(sep).includes('node_modules'))
    .map((file) => join(src, file));
}

/**
 * The paths a file builds from its own location (`new URL('…', import.meta.url)`, `join(import.meta.dirname, '…', …)`),
 * resolved.
 */
function pathsFromOwnLocation(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const urls = [...text.matchAll(/new URL\('([^']+)',\s*import\.meta\.url\)/g)].map((m) =>
    fileURLToPath(new URL(m[1]!, `file://${file}`)),
  );
  const joins = [...text.matchAll(/join\(import\.meta\.dirname((?:,\s*'[^']*')+)\)/g)].map((m) =>
    resolve(dirname(file), ...[...m[1]!.matchAll(/'([^']*)'/g)].map((p) => p[1]!)),
  );
  return [...urls, ...joins];
}

/** Packages whose owner still has to hand the path in from the entry; each entry is a known gap, not a permission. */
const NOT_YET_MOVED: string[] = [];

describe('the workspace layout', () => {
  it('has no package reach outside itself for files, except its entry (src/main.ts), which hands the paths in', () => {
    const reaching: string[] = [];
    for (const folder of workspacePackages().filter((f) => f.startsWith('packages/'))) {
      for (const file of sources(folder)) {
        if (basename(file) === 'main.ts' && dirname(file) === join(ROOT, folder, 'src')) continue;
        const outside = pathsFromOwnLocation(file).filter((path) =>
          relative(join(ROOT, folder), path).startsWith('..'),
        );
        if (outside.length > 0) reaching.push(relative(ROOT, file));
      }
    }
    expect(reaching).to.deep.equal(NOT_YET_MOVED);
  });
});

/** The package map of docs/architecture.md: every path it lists (folders end in /), with the text beside it. */
function packageMap(): Map<string, string> {
  const section = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8').split('\n## Packages\n')[1]!;
  const block = /```\n([\s\S]*?)```/.exec(section)![1]!;
  const listed = new Map<string, string>();
  const stack: string[] = [];
  for (const line of block.split('\n').filter(Boolean)) {
    const [, indent, name, text] = /^( *)(\S+)\s*(.*)$/.exec(line)!;
    const depth = indent!.length / 2;
    // A description's continuation is indented past any folder's children: it names nothing.
    if (!Number.isInteger(depth) || depth > stack.length) continue;
    stack.length = depth;
    const path = [...stack, name!].join('');
    listed.set(path, text!);
    if (name!.endsWith('/')) stack.push(name!);
  }
  return listed;
}

describe('the package map in docs/architecture.md', () => {
  let listed: Map<string, string>;
  let folders: string[];
  before(() => {
    listed = packageMap();
    folders = [...listed.keys()].filter((path) => path.endsWith('/')).map((path) => path.slice(0, -1));
  });

  it('names every workspace package', () => {
    expect(workspacePackages().filter((folder) => !folders.includes(folder))).to.deep.equal([]);
  });

  it('lists only what exists, and as a package only what is one, under the name its package.json gives', () => {
    expect([...listed.keys()].filter((path) => !existsSync(join(ROOT, path)))).to.deep.equal([]);
    const packages = workspacePackages();
    const leaves = folders.filter(
      (folder) => /^(packages|tools)\//.test(folder) && !folders.some((other) => other.startsWith(`${folder}/`)),
    );
    expect(leaves.filter((folder) => !packages.includes(folder))).to.deep.equal([]);
    for (const folder of leaves) {
      const { name } = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { name: string };
      expect(listed.get(`${folder}/`), folder).to.match(new RegExp(`^${name.replace('/', '\\/')}[:,]`));
    }
  });

  it('names everything in docs/', () => {
    const docs = readdirSync(join(ROOT, 'docs'), { withFileTypes: true }).map(
      (entry) => `docs/${entry.name}${entry.isDirectory() ? '/' : ''}`,
    );
    expect(docs.filter((path) => !listed.has(path))).to.deep.equal([]);
  });
});
