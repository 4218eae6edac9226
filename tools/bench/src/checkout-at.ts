import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const workspace = join(import.meta.dirname, '..', '..', '..');
const INSTALLED = '.bench-installed';

/**
 * The environment of a program that must run on `node`: that Node first on
 * the PATH, without this workspace's node_modules/.bin (whose `node` is Node
 * 24, ADR 0017) and without the npm_* settings pnpm hands to the scripts it
 * runs, so an install builds its native addons for `node`.
 */
export function environmentFor(node: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm|pnpm)_/i.test(name)));
  const path = (process.env.PATH ?? '').split(delimiter).filter((entry) => !entry.includes(`node_modules${'/'}.bin`));
  return { ...env, PATH: [dirname(node), ...path].join(delimiter) };
}

/** The version `node` reports, such as v20.20.2. */
export function nodeVersion(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

/**
 * A copy of this repository at `commit`, installed by pnpm running on `node`
 * (its native addons built for that Node), in the temporary folder: the
 * service as it was, for a before/after in one run. Made once per commit and
 * Node and kept for later runs; `log` says what takes time.
 */
export function installedCheckout(
  commit: string,
  node: string,
  log: (line: string) => void,
): { folder: string; commit: string } {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${commit}^{commit}`], {
    cwd: workspace,
    encoding: 'utf8',
  }).trim();
  const short = sha.slice(0, 7);
  const folder = join(tmpdir(), `stock-bench-${short}-node-${nodeVersion(node).replace(/^v/, '')}`);
  if (existsSync(join(folder, INSTALLED))) return { folder, commit: short };
  log(`making ${folder}: ${short} from git, installed with pnpm on ${node} (${nodeVersion(node)})`);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  execFileSync('sh', ['-c', 'git archive --format=tar "$1" | tar -x -C "$2"', 'archive', sha, folder], {
    cwd: workspace,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const install = (offline: boolean) =>
    execFileSync('pnpm', ['install', '--frozen-lockfile', ...(offline ? ['--offline'] : [])], {
      cwd: folder,
      env: environmentFor(node),
      stdio: ['ignore', process.stderr, 'inherit'],
    });
  try {
    install(true);
  } catch {
    log('the offline install missed a package: installing from the registry');
    install(false);
  }
  writeFileSync(join(folder, INSTALLED), `${sha}\n${nodeVersion(node)}\n`);
  return { folder, commit: short };
}
