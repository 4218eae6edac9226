import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..', '..');

/**
 * podman's environment: deploy/containers.conf unless CONTAINERS_CONF names another (runc, cgroupfs, events in a
 * file and ulimits the host allows: what podman needs on this kind of machine, ADR 0028).
 */
export function containersEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, CONTAINERS_CONF: env.CONTAINERS_CONF ?? join(ROOT, 'deploy', 'containers.conf') };
}

/** Runs podman (or buildah, skopeo) and answers what it printed; a failure throws with its stderr. */
export function run(command: string, args: readonly string[], timeoutMs = 300_000): string {
  return execFileSync(command, args, {
    cwd: ROOT,
    env: containersEnv(),
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

export const podman = (args: readonly string[], timeoutMs?: number) => run('podman', args, timeoutMs);

/** Whether podman is installed here (the suites that need it say so, and CI installs it). */
export const hasPodman = () => spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * The tag images get: the commit, with `-dirty` when the work tree differs from it, so an image built from
 * uncommitted changes never passes for the commit's.
 */
export function revisionTag(): string {
  const commit = run('git', ['rev-parse', '--short=12', 'HEAD']);
  const dirty = run('git', ['status', '--porcelain', '--untracked-files=no']) !== '';
  return dirty ? `${commit}-dirty` : commit;
}

/** The base image's name, as deploy/base/build-base.sh tags it: the Node the workspace runs on. */
export const baseImage = (nodeVersion = process.versions.node) => `localhost/commerce/node:${nodeVersion}`;

/** Builds the base image (seconds: it copies files) and answers its name. */
export function buildBase(): string {
  const script = join(ROOT, 'deploy', 'base', 'build-base.sh');
  if (!existsSync(script)) throw new Error(`${script} is missing`);
  return run('bash', [script]);
}
