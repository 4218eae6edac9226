import { containersEnv, SERVICES } from '@tools/deploy';
import { type ChildProcessByStdio, execFileSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * The drills' instances as containers of the images `pnpm images` built (`pnpm drills --images <tag>`), each run as
 * the manifests run a pod: user 10001, a read-only root with an in-memory /tmp, every capability dropped, no
 * privilege escalation; on the host's network, as the local overlay's pods are, so every address stays the same.
 * `podman run` stays attached: its output is the service's, it passes SIGTERM on and exits with the service's code.
 */
let imageTag: string | undefined;
/** Whether the drills run against the pods of the local overlay (`--pods`), played from the images tagged imageTag. */
let podsPlayed = false;

export function runInImages(tag: string): void {
  imageTag = tag;
}

/**
 * `pnpm drills --pods <tag>`: the drills' system is the local overlay as `pnpm kube:play` plays it (its manifests'
 * settings, stop timings and secrets), from the images tagged `tag`, with a second replica of stock and sales
 * (tools/deploy's SECOND_REPLICAS); a drill's faults are the pods' (podman pod stop, podman pod kill).
 */
export function runInPods(tag: string): void {
  imageTag = tag;
  podsPlayed = true;
}

/** Every instance a container of its image, started one by one by the drill (`--images`). */
export const inImages = () => imageTag !== undefined && !podsPlayed;
/** Every instance a pod of the played local overlay (`--pods`). */
export const inPods = () => podsPlayed;
/** The tag of the images the drills run. */
export const imagesTag = () => imageTag;

/** The user the images run as; the files a drill hands an instance must be theirs. */
export const IMAGE_UID = 10001;

/** Containers started and not yet removed, by name: whatever ends the drill's process removes them. */
const RUNNING = new Set<string>();
process.once('exit', () => {
  if (RUNNING.size > 0) podman(['rm', '--force', '--time', '0', ...RUNNING]);
});

export function podman(args: readonly string[]): string {
  try {
    return execFileSync('podman', args, { env: containersEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    return (error as { stderr?: string }).stderr ?? String(error);
  }
}

function imageOf(role: string): string {
  const service = SERVICES.find((candidate) => candidate.name === role);
  if (!service || !imageTag) throw new Error(`no image for ${role}`);
  return `localhost/commerce/${service.name}:${imageTag}`;
}

/** The container an instance runs in: its name, from the drill's name for it and this process. */
export const containerName = (instance: string) => `drill-${instance.replaceAll(' ', '-')}-${process.pid}`;

/** Starts `role`'s image as the container `name`, with `env`; the folders of files it names in tmp are mounted. */
export function spawnContainer(
  role: string,
  name: string,
  env: Record<string, string>,
): ChildProcessByStdio<null, Readable, Readable> {
  podman(['rm', '--force', '--time', '0', name]);
  const folders = new Set(
    Object.values(env)
      .filter((value) => value.startsWith(`${tmpdir()}/`))
      .map((path) => dirname(path)),
  );
  const child = spawn(
    'podman',
    [
      'run',
      '--rm',
      '--name',
      name,
      '--network',
      'host',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--user',
      `${IMAGE_UID}:${IMAGE_UID}`,
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      ...[...folders].flatMap((folder) => ['--volume', `${folder}:${folder}`]),
      ...Object.entries(env).flatMap(([variable, value]) => ['--env', `${variable}=${value}`]),
      imageOf(role),
    ],
    { env: containersEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  RUNNING.add(name);
  child.once('exit', () => RUNNING.delete(name));
  return child;
}

/** kill -9 of the service in the container (a SIGKILL to `podman run` would leave the container running). */
export function killContainer(name: string): void {
  podman(['kill', '--signal', 'KILL', name]);
}

/** The host's PID of the service in the container, for its RSS. */
export function containerPid(name: string): number | undefined {
  const pid = Number(podman(['inspect', '--format', '{{.State.Pid}}', name]).trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
