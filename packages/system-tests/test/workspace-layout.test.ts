import { workspacePackageFolders } from '@platform/test-kit';
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The package rules of ADR 0026, read from every package.json of the workspace: no cycle (dev-only ones included), a
// platform of at most six packages, domains free of adapters and frameworks, and webhooks that are stock's own.
const ROOT = join(import.meta.dirname, '..', '..', '..');

interface Manifest {
  readonly folder: string;
  readonly name: string;
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

/** Every workspace package, as pnpm-workspace.yaml globs them (a folder with a package.json). */
function workspacePackages(): Manifest[] {
  return workspacePackageFolders(ROOT).map((folder) => {
    const json = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as Partial<Manifest>;
    return {
      folder,
      name: json.name!,
      dependencies: json.dependencies ?? {},
      devDependencies: json.devDependencies ?? {},
    };
  });
}

const allDependencies = (manifest: Manifest) => [
  ...Object.keys(manifest.dependencies),
  ...Object.keys(manifest.devDependencies),
];

/** Each cycle among the workspace's packages, as the names along it (the first repeated at the end). */
function cyclesOf(manifests: readonly Manifest[]): string[][] {
  const names = new Set(manifests.map((manifest) => manifest.name));
  const edges = new Map(
    manifests.map((manifest) => [manifest.name, allDependencies(manifest).filter((name) => names.has(name))]),
  );
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (name: string): void => {
    state.set(name, 'open');
    path.push(name);
    for (const next of edges.get(name) ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(name, 'done');
  };
  for (const name of [...names].sort()) if (!state.has(name)) visit(name);
  return cycles;
}

/** What a domain package may not depend on: the frameworks and drivers its adapters use. */
const FRAMEWORKS = /^(koa|@koa\/.*|@mikro-orm\/.*|pg|better-sqlite3|kysely|rabbitmq-client|undici|winston)$/;
/** Which workspace packages are adapters or roots: a domain depends on none of them. */
const ADAPTER = /\/(http-koa|persistence-[a-z]+|service|stock-client|application)$|^@platform\/(?!kernel$)/;

describe('the workspace packages (ADR 0026)', () => {
  let manifests: Manifest[];
  before(() => {
    manifests = workspacePackages();
  });

  it('depend on one another without a cycle, dev dependencies included', () => {
    expect(cyclesOf(manifests).map((cycle) => cycle.join(' → '))).to.deep.equal([]);
  });

  it('finds a cycle where there is one (the check itself)', () => {
    const manifest = (name: string, dependency: string): Manifest => ({
      folder: name,
      name,
      dependencies: {},
      devDependencies: { [dependency]: 'workspace:*' },
    });
    expect(cyclesOf([manifest('a', 'b'), manifest('b', 'c'), manifest('c', 'a')])).to.deep.equal([
      ['a', 'b', 'c', 'a'],
    ]);
  });

  it('hold a platform of at most six packages', () => {
    const platform = manifests.filter((manifest) => manifest.folder.startsWith('packages/platform/'));
    expect(platform.length, platform.map((manifest) => manifest.name).join(', ')).to.be.at.most(6);
  });

  it('keep every domain free of adapters, Koa, MikroORM and the database drivers', () => {
    const domains = manifests.filter((manifest) => manifest.name.endsWith('/domain'));
    expect(domains.map((manifest) => manifest.name)).to.include.members(['@stock/domain', '@sales/domain']);
    const offending = domains.flatMap((manifest) =>
      allDependencies(manifest)
        .filter((name) => FRAMEWORKS.test(name) || ADAPTER.test(name))
        .map((name) => `${manifest.name} → ${name}`),
    );
    expect(offending).to.deep.equal([]);
  });

  it('give stock its webhooks: no stock package depends on, or imports, a platform webhooks package', () => {
    const depending = manifests
      .filter((manifest) => manifest.name.startsWith('@stock/'))
      .flatMap((manifest) =>
        allDependencies(manifest)
          .filter((name) => /^@platform\/.*webhook/.test(name))
          .map((name) => `${manifest.name} → ${name}`),
      );
    expect(depending).to.deep.equal([]);
    const grep = spawnSync('git', ['grep', '-l', '-E', "from '@platform/[^']*webhook", '--', 'packages/stock/*.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(grep.status, grep.stderr).to.be.oneOf([0, 1]);
    expect(grep.stdout.split('\n').filter(Boolean)).to.deep.equal([]);
  });
});
