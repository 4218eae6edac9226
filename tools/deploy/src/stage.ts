import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { ImagedService } from './services';

/**
 * What one service's image holds under /app, laid out as in the workspace, so the bundle runs there as it runs here:
 * - dist/service.js and its source map: the service's bundle (ADR 0025), under one name every image starts;
 * - the packages of node_modules/.pnpm it imports, and theirs, and so on: the bundle imports each by the path it
 *   resolves to (`../node_modules/.pnpm/koa@3.3.0/node_modules/koa/…`), and pnpm links a package's own dependencies
 *   beside it, so following those links finds everything it can load;
 * - the links `packages/<p>/node_modules/<dependency>` of each workspace package bundled in it, for the packages its
 *   production dependencies name: code that resolves a package from where its source sits (createRequire) finds them;
 * - the workspace files and folders it reads (its OpenAPI descriptions; the gateway's, the back office's build).
 * Nothing of the dev dependencies, the TypeScript sources or the other services.
 */
export interface StagedService {
  /** The folder to copy to /app. */
  readonly app: string;
  /** The .pnpm entries copied, by name. */
  readonly packages: readonly string[];
}

const STORE = join('node_modules', '.pnpm');
/**
 * Entries no image needs: Node itself is in the base image (better-sqlite3 names it as an optional dependency,
 * pnpm-workspace.yaml), and type declarations are never loaded.
 */
const NOT_RUN = /^(node-linux-|@types\+)/;

/**
 * Files no service loads: declarations, source maps and pages of the packages (the bundle's own map is kept), and
 * better-sqlite3's C sources and its binaries for other platforms (it loads prebuilds/<platform>-<arch>.node).
 */
function loaded(path: string): boolean {
  if (/\.(d\.[cm]?ts|map|md)$/.test(path)) return false;
  const inSqlite = /\/node_modules\/better-sqlite3\/(.*)$/.exec(path)?.[1];
  if (inSqlite === undefined) return true;
  if (/^(deps|src)(\/|$)/.test(inSqlite)) return false;
  const prebuilt = /^prebuilds\/(.+)\.node$/.exec(inSqlite)?.[1];
  return prebuilt === undefined || prebuilt === `${process.platform}-${process.arch}`;
}

/** The .pnpm entry a path inside the store belongs to: `node_modules/.pnpm/<entry>/…`. */
function storeEntryOf(pathFromRoot: string): string | undefined {
  const parts = pathFromRoot.split(sep);
  return parts[0] === 'node_modules' && parts[1] === '.pnpm' && parts[2] !== 'node_modules' ? parts[2] : undefined;
}

/** The store entries the bundle imports by path. */
function importedEntries(root: string, bundle: string): string[] {
  const source = readFileSync(join(root, 'dist', `${bundle}.js`), 'utf8');
  const paths = [...source.matchAll(/["'](\.\.\/node_modules\/\.pnpm\/[^"']+)["']/g)].map((match) => match[1]!);
  return paths.map((path) => storeEntryOf(relative(root, resolve(root, 'dist', path)))!);
}

/** Each link in a folder of node_modules, scoped ones included: [name, absolute target]. */
function linksIn(folder: string): [string, string][] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.')) return [];
    if (entry.isDirectory() && entry.name.startsWith('@'))
      return linksIn(join(folder, entry.name)).map(([name, target]): [string, string] => [
        `${entry.name}/${name}`,
        target,
      ]);
    if (!entry.isSymbolicLink()) return [];
    return [[entry.name, resolve(folder, readlinkSync(join(folder, entry.name)))]];
  });
}

/** The workspace packages a bundle was built from, by folder: the sources its source map names. */
function bundledPackages(root: string, bundle: string): string[] {
  const map = JSON.parse(readFileSync(join(root, 'dist', `${bundle}.js.map`), 'utf8')) as { sources: string[] };
  const folders = new Set<string>();
  for (const source of map.sources) {
    let folder = dirname(resolve(root, 'dist', source));
    while (folder.startsWith(root) && folder !== root && !existsSync(join(folder, 'package.json')))
      folder = dirname(folder);
    if (folder !== root && !folder.split(sep).includes('node_modules')) folders.add(relative(root, folder));
  }
  return [...folders].sort();
}

/** The links of a workspace package to the store that its production dependencies name. */
function productionLinks(root: string, folder: string): [string, string][] {
  const manifest = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const names = new Set(Object.keys(manifest.dependencies ?? {}));
  return linksIn(join(root, folder, 'node_modules')).filter(
    ([name, target]) => names.has(name) && storeEntryOf(relative(root, target)) !== undefined,
  );
}

/** Every store entry reachable from `start` through the links pnpm puts beside each package. */
function closure(root: string, start: Iterable<string>): Set<string> {
  const found = new Set<string>();
  const pending = [...start];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    if (found.has(entry) || NOT_RUN.test(entry)) continue;
    found.add(entry);
    for (const [, target] of linksIn(join(root, STORE, entry, 'node_modules'))) {
      const next = storeEntryOf(relative(root, target));
      if (next && !found.has(next)) pending.push(next);
    }
  }
  return found;
}

/** Copies what `service`'s image holds into `into`/app (see StagedService); dist/ must be built. */
export function stageService(root: string, service: ImagedService, into: string): StagedService {
  const app = join(into, 'app');
  mkdirSync(join(app, 'dist'), { recursive: true });
  const bundle = readFileSync(join(root, 'dist', `${service.bundle}.js`), 'utf8');
  writeFileSync(join(app, 'dist', 'service.js'), bundle);
  cpSync(join(root, 'dist', `${service.bundle}.js.map`), join(app, 'dist', `${service.bundle}.js.map`));

  const links = bundledPackages(root, service.bundle).flatMap((folder) =>
    productionLinks(root, folder).map(([name, target]) => ({ at: join(folder, 'node_modules', name), target })),
  );
  const entries = closure(root, [
    ...importedEntries(root, service.bundle),
    ...links.map((link) => storeEntryOf(relative(root, link.target))!),
  ]);
  for (const entry of entries) {
    cpSync(join(root, STORE, entry), join(app, STORE, entry), {
      recursive: true,
      verbatimSymlinks: true,
      filter: loaded,
    });
  }
  for (const { at, target } of links) {
    mkdirSync(dirname(join(app, at)), { recursive: true });
    symlinkSync(readlinkSync(join(root, at)), join(app, at));
    if (!existsSync(join(app, relative(root, target)))) throw new Error(`${at} links outside the staged store`);
  }
  for (const file of service.files) {
    if (!existsSync(join(root, file)))
      throw new Error(`${file}, which the ${service.name} image carries, is missing: build it (pnpm build) first`);
    cpSync(join(root, file), join(app, file), { recursive: true });
  }
  return { app, packages: [...entries].sort() };
}
