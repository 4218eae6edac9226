import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What the back office's build is made from: a change to any of them makes the build stale. */
const SOURCES = ['src', 'index.html', 'vite.config.ts', 'package.json'];

/** The newest file under `path` (a file, or a folder walked whole): its path and when it changed. */
function newest(path: string): { path: string; changed: number } | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return undefined;
  if (!stats.isDirectory()) return { path, changed: stats.mtimeMs };
  let found: { path: string; changed: number } | undefined;
  for (const entry of readdirSync(path)) {
    const candidate = newest(join(path, entry));
    if (candidate && (!found || candidate.changed > found.changed)) found = candidate;
  }
  return found;
}

/**
 * Why the back office in `packageDir` must be built before it is served: its dist/index.html is missing, or a source
 * changed after it was written; undefined when the build is fresh.
 */
export function backOfficeStaleness(packageDir: string): string | undefined {
  const built = statSync(join(packageDir, 'dist', 'index.html'), { throwIfNoEntry: false });
  if (!built) return 'it was never built';
  const sources = SOURCES.map((source) => newest(join(packageDir, source))).filter((found) => found !== undefined);
  const source = sources.reduce<(typeof sources)[number] | undefined>(
    (latest, found) => (!latest || found.changed > latest.changed ? found : latest),
    undefined,
  );
  if (source && source.changed > built.mtimeMs) return `${relative(packageDir, source.path)} changed since it was`;
  return undefined;
}

/** What start:system says of the back office's build, if anything: it built it, or it could not (and how to). */
export type BackOfficeBuild =
  | { readonly kind: 'fresh' }
  | { readonly kind: 'built'; readonly line: string }
  | { readonly kind: 'failed'; readonly line: string };

/**
 * Builds the back office (`pnpm build:back-office`, in `root`) when its build is stale, so that the gateway serves the
 * sources as they are. A build that fails does not stop the system: the gateway's /admin/ says it is not built.
 */
export function buildBackOfficeIfStale(root: string, build = ['pnpm', 'build:back-office']): BackOfficeBuild {
  const reason = backOfficeStaleness(join(root, 'packages', 'back-office'));
  if (reason === undefined) return { kind: 'fresh' };
  const started = performance.now();
  const [command, ...args] = build as [string, ...string[]];
  const run = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.error || run.status !== 0) {
    const why = run.error?.message ?? run.stderr.trim().split('\n').at(-1) ?? `exit ${run.status}`;
    return {
      kind: 'failed',
      line: `the back office needs a build (${reason}) and ${build.join(' ')} failed (${why}): run pnpm build:back-office, then reload /admin/`,
    };
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return { kind: 'built', line: `built the back office in ${seconds} s (${reason})` };
}
