/**
 * The root package's postinstall, run on the workspace's Node (ADR 0017).
 * pnpm builds a native addon when it first places the package in
 * node_modules and keeps that build afterwards: a node_modules installed
 * before the workspace moved to Node 24 still holds a better-sqlite3 built
 * for Node 20, which Node 24 refuses to load (NODE_MODULE_VERSION 115, not
 * 137). Each addon that this Node refuses for that reason is rebuilt, once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * The prebuilt addon a package ships for this platform (better-sqlite3 13 ships them, and builds nothing on install).
 */
const PREBUILT = `${process.platform}-${process.arch}.node`;

/**
 * Each package in pnpm's virtual store (its own directory, not a link to a dependency) with addons: compiled here, or
 * prebuilt for this platform.
 */
export function* packagesWithAddons(store: string): Generator<{ name: string; dir: string; addons: string[] }> {
  for (const id of existsSync(store) ? readdirSync(store) : []) {
    const modules = join(store, id, 'node_modules');
    if (!existsSync(modules)) continue;
    for (const entry of readdirSync(modules)) {
      const names = entry.startsWith('@')
        ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`)
        : [entry];
      for (const name of names) {
        const dir = join(modules, name);
        if (lstatSync(dir).isSymbolicLink()) continue;
        const release = join(dir, 'build', 'Release');
        const compiled = existsSync(release)
          ? readdirSync(release)
              .filter((file) => file.endsWith('.node'))
              .map((file) => join(release, file))
          : [];
        const prebuilt = join(dir, 'prebuilds', PREBUILT);
        const addons = existsSync(prebuilt) ? [...compiled, prebuilt] : compiled;
        if (addons.length > 0) yield { name, dir, addons };
      }
    }
  }
}

/** Whether this Node refuses the addon because it was built for another Node's ABI. */
function builtForAnotherNode(addon: string): boolean {
  try {
    require(addon);
    return false;
  } catch (error) {
    return /NODE_MODULE_VERSION/.test((error as Error).message);
  }
}

export function staleAddonPackages(root: string): string[] {
  const stale = new Set<string>();
  for (const { name, addons } of packagesWithAddons(join(root, 'node_modules', '.pnpm'))) {
    if (addons.some(builtForAnotherNode)) stale.add(name);
  }
  return [...stale].sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const stale = staleAddonPackages(root);
  if (stale.length > 0) {
    console.log(`${stale.join(', ')}: built for another Node; rebuilding for Node ${process.version} (ADR 0017)`);
    // The pnpm running this install (npx's, or one on the PATH), on this Node.
    const pnpm = process.env.npm_execpath;
    if (pnpm)
      execFileSync(process.execPath, [pnpm, 'rebuild', '--recursive', ...stale], { cwd: root, stdio: 'inherit' });
    else execFileSync('pnpm', ['rebuild', '--recursive', ...stale], { cwd: root, stdio: 'inherit' });
    const still = staleAddonPackages(root);
    if (still.length > 0) throw new Error(`${still.join(', ')}: still built for another Node after the rebuild`);
  }
}
