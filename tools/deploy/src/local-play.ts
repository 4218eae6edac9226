import { createKeysFileIfMissing } from '@commerce/identity';
import { developmentClientsFile } from '@tools/system/src/development-clients';
import { chownSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type KubeObject, renderOverlay, withImageTag } from './kustomize';
import { manifestProblems } from './manifest-checks';
import { podman } from './podman';
import { SERVICES } from './services';

/** Where the local overlay's hostPath volumes look for each service's secrets (deploy/kubernetes/overlays/local). */
export const LOCAL_STATE = '/run/commerce-local';
const SECRETS = join(LOCAL_STATE, 'secrets');
/** What was played: the Deployments and ConfigMaps, as podman read them. */
const PLAYED = join(LOCAL_STATE, 'played.yaml');
/** The user the images run as (deploy/base/build-base.sh), who must own the secret files at 0600. */
const APP_UID = 10001;
/** The kinds podman 4.3 plays; the others (Service, Ingress, autoscaler, budget) are checked but need a cluster. */
const PLAYED_KINDS = new Set(['Deployment', 'ConfigMap']);

export interface LocalBackends {
  readonly stockDatabaseUrl: string;
  readonly salesDatabaseUrl: string;
  readonly amqpUrl: string;
  readonly redisUrl: string;
}

export interface LocalSystem {
  /** The gateway, on loopback. */
  readonly gateway: string;
  /** The clients file identity reads. */
  readonly clientsFile: string;
  /** The manifests podman played (the Deployments and their ConfigMaps). */
  readonly playedFile: string;
}

/**
 * The secret files each service's pod mounts, as the Secrets of a cluster would hold them: random client secrets and
 * a new signing key each time, the backends' URLs. Answers every secret value written.
 */
export async function writeLocalSecrets(backends: LocalBackends): Promise<string[]> {
  rmSync(SECRETS, { recursive: true, force: true });
  const folder = (service: string) => {
    const path = join(SECRETS, service);
    mkdirSync(path, { recursive: true, mode: 0o700 });
    return path;
  };
  const json = (service: string, file: string, value: unknown) =>
    writeFileSync(join(folder(service), file), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  const { clients } = developmentClientsFile(join(folder('identity'), 'clients.json'));
  await createKeysFileIfMissing(join(folder('identity'), 'keys.json'));
  const salesClient = clients.find((client) => client.clientId === 'sales-service')!;
  json('stock', 'config.json', { databaseUrl: backends.stockDatabaseUrl, amqpUrl: backends.amqpUrl });
  json('sales', 'config.json', {
    databaseUrl: backends.salesDatabaseUrl,
    amqpUrl: backends.amqpUrl,
    stockClientSecret: salesClient.clientSecret,
  });
  json('gateway', 'config.json', { redisUrl: backends.redisUrl });
  for (const service of ['identity', 'stock', 'sales', 'gateway']) {
    chownSync(folder(service), APP_UID, APP_UID);
    for (const file of service === 'identity' ? ['clients.json', 'keys.json'] : ['config.json'])
      chownSync(join(folder(service), file), APP_UID, APP_UID);
  }
  const keys = JSON.parse(readFileSync(join(folder('identity'), 'keys.json'), 'utf8')) as { keys: { d: string }[] };
  return [...clients.map((client) => client.clientSecret), ...keys.keys.map((key) => key.d)];
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

async function readyWithin(url: string, until: number): Promise<boolean> {
  while (Date.now() < until) {
    const status = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

/** podman names a Deployment's first pod <name>-pod-0 and its container <pod>-<container>. */
const podOf = (service: string) => `${service}-pod-0`;
export const containerOf = (service: string) => `${podOf(service)}-${service}`;

/** Each container's state and last lines: what a failed start leaves to read. */
function lastLogs(): string {
  const said = (args: string[]) => {
    try {
      return podman(args, 10_000);
    } catch (error) {
      return (error as Error).message;
    }
  };
  return SERVICES.map((service) => {
    const container = containerOf(service.name);
    const state = said([
      'inspect',
      '--format',
      '{{.State.Status}}, exit {{.State.ExitCode}}, restarts {{.RestartCount}}',
      container,
    ]);
    return `--- ${service.name} (${state})\n${said(['logs', '--tail', '15', container])}`;
  }).join('\n');
}

/**
 * Plays the local overlay with podman, its images tagged `tag` (built by `pnpm images`), on the secrets
 * writeLocalSecrets wrote, and waits until every service is ready; a failure takes down what was played, and says why
 * with the containers' last lines.
 */
export async function playLocal(tag: string, readyWithinMs = 120_000): Promise<LocalSystem> {
  // A play replaces the one before, and whatever a run that was killed left.
  removeLocalPods();
  for (const service of SERVICES)
    if (!(await portFree(service.port)))
      throw new Error(`port ${service.port} (${service.name}) is in use on this machine: stop what listens there`);
  const objects = withImageTag(renderOverlay('local'), tag);
  const problems = manifestProblems(objects);
  if (problems.length > 0) throw new Error(`the local overlay fails its checks:\n${problems.join('\n')}`);
  const played = objects.filter((object: KubeObject) => PLAYED_KINDS.has(object.kind));
  mkdirSync(LOCAL_STATE, { recursive: true, mode: 0o700 });
  writeFileSync(PLAYED, played.map((object) => stringify(object)).join('---\n'));
  try {
    podman(['kube', 'play', PLAYED], 120_000);
    const until = Date.now() + readyWithinMs;
    for (const service of SERVICES) {
      const path = service.name === 'sample-app' ? '/swagger/' : '/health/ready';
      if (!(await readyWithin(`http://127.0.0.1:${service.port}${path}`, until)))
        throw new Error(`${service.name} was not ready within ${readyWithinMs / 1000} s\n${lastLogs()}`);
    }
  } catch (error) {
    takeDownLocal();
    throw error;
  }
  return {
    gateway: 'http://localhost:8000',
    clientsFile: join(SECRETS, 'identity', 'clients.json'),
    playedFile: PLAYED,
  };
}

/**
 * Takes down every pod the local overlay plays, and its secrets; nothing is left running. By the pods' names, not with
 * `kube down`, which stops at the first pod a failed play never made. Safe to call when nothing runs.
 */
export function takeDownLocal(): void {
  removeLocalPods();
  rmSync(LOCAL_STATE, { recursive: true, force: true });
}

function removeLocalPods(): void {
  const pods = SERVICES.map((service) => podOf(service.name));
  podman(['pod', 'rm', '--force', '--ignore', '--time', '20', ...pods], 120_000);
}
