import { createKeysFileIfMissing } from '@commerce/identity';
import { type Client, DEVELOPMENT_CLIENTS, developmentClientsFile } from '@tools/system/src/development-clients';
import { createFirstAdmin } from '@tools/system/src/first-admin';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
/** The password of the staff user `admin` that kube:play makes, for the person who plays to read (root's alone). */
const ADMIN_PASSWORD = join(LOCAL_STATE, 'admin-password.txt');
/** The user the images run as (deploy/base/build-base.sh), who must own the secret files at 0600. */
const APP_UID = 10001;
/** The kinds podman 4.3 plays; the others (Service, Ingress, autoscaler, budget) are checked but need a cluster. */
const PLAYED_KINDS = new Set(['Deployment', 'ConfigMap']);
/** The offline payment provider's address on the host's network, as the local overlay's sales names it. */
const PAYMENTS_URL = 'http://127.0.0.1:8084';
/**
 * Where the provider sends sales' events: the gateway, as a provider outside would (start:system does the same), on
 * loopback (the gateway listens on 127.0.0.1, which `localhost` may not resolve to first).
 */
const PAYMENT_EVENTS_URL = 'http://127.0.0.1:8000/api/payment-events';

/**
 * The second replica of stock and of sales that `twoOfEach` plays: podman 4.3 plays one pod per Deployment, and on
 * the host's network two replicas would want one port, so each is a copy of the Deployment named <name>-b on a port
 * of its own (its own secrets folder too, so a drill can give it its own broker URL), and the gateway is told both
 * addresses, as a Service's endpoints would list both pods.
 */
export const SECOND_REPLICAS: Readonly<Record<'stock' | 'sales', { readonly name: string; readonly port: number }>> = {
  stock: { name: 'stock-b', port: 8180 },
  sales: { name: 'sales-b', port: 8182 },
};

export interface LocalBackends {
  readonly stockDatabaseUrl: string;
  readonly salesDatabaseUrl: string;
  readonly amqpUrl: string;
  readonly redisUrl: string;
  /**
   * The clients identity knows: the development clients (random secrets) unless given; sales' own client for stock,
   * `sales-service`, is added when missing.
   */
  readonly clients?: readonly Client[];
  /** A Deployment's own broker URL instead of `amqpUrl` (a drill's freezable link for one stock pod). */
  readonly amqpUrlOf?: Readonly<Record<string, string>>;
}

export interface LocalPlayOptions {
  /** How long every service may take to be ready. */
  readonly readyWithinMs?: number;
  /** A second replica of stock and sales (SECOND_REPLICAS), for the drills. */
  readonly twoOfEach?: boolean;
  /** Settings on top of a Deployment's ConfigMap, by Deployment name (the drills' log level, rate limit, tokens). */
  readonly settings?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface LocalSystem {
  /** The gateway, on loopback. */
  readonly gateway: string;
  /** The clients file identity reads. */
  readonly clientsFile: string;
  /** The manifests podman played (the Deployments and their ConfigMaps). */
  readonly playedFile: string;
  /** The offline payment provider, where a buyer confirms an order's PaymentIntent. */
  readonly payments: string;
  /** Its secret key (a buyer's and sales'). */
  readonly paymentsApiKey: string;
  /** The `whsec_…` of the webhook endpoint registered for sales, handed to sales as a secret file. */
  readonly paymentsWebhookSecret: string;
  /** The staff user `admin`'s password, in a file of root's. */
  readonly adminPasswordFile: string;
  /** The Deployments played, by name: their pods are <name>-pod-0 (podOf). */
  readonly deployments: readonly string[];
}

const deploymentsOf = (twoOfEach: boolean) => [
  ...SERVICES.map((service) => service.name),
  ...(twoOfEach ? Object.values(SECOND_REPLICAS).map((replica) => replica.name) : []),
];

const secretsFolder = (deployment: string) => join(SECRETS, deployment);

/** A JSON file of secrets, owned by the images' user at 0600. */
function writeSecret(deployment: string, file: string, value: unknown): void {
  const path = join(secretsFolder(deployment), file);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  chownSync(path, APP_UID, APP_UID);
}

/**
 * The secret files each service's pod mounts, as the Secrets of a cluster would hold them: the clients (random
 * secrets unless `clients` names them), a new signing key, a staff user `admin` with a random password (its
 * password in a file of root's), the offline provider's random key, the backends' URLs. Sales' payment settings are
 * written by playLocal, once the provider has registered its webhook endpoint. Answers every secret value written.
 */
export async function writeLocalSecrets(backends: LocalBackends, { twoOfEach = false } = {}): Promise<string[]> {
  rmSync(SECRETS, { recursive: true, force: true });
  mkdirSync(LOCAL_STATE, { recursive: true, mode: 0o700 });
  for (const deployment of deploymentsOf(twoOfEach))
    mkdirSync(secretsFolder(deployment), { recursive: true, mode: 0o700 });
  const identity = secretsFolder('identity');
  let clients: readonly Client[];
  if (backends.clients) {
    const sales = DEVELOPMENT_CLIENTS.find((client) => client.clientId === 'sales-service')!;
    const own = backends.clients.some((client) => client.clientId === sales.clientId)
      ? []
      : [{ clientId: sales.clientId, clientSecret: randomBytes(32).toString('base64url'), scopes: [...sales.scopes] }];
    clients = [...backends.clients, ...own];
    writeFileSync(join(identity, 'clients.json'), `${JSON.stringify(clients, null, 2)}\n`, { mode: 0o600 });
  } else clients = developmentClientsFile(join(identity, 'clients.json')).clients;
  await createKeysFileIfMissing(join(identity, 'keys.json'));
  rmSync(ADMIN_PASSWORD, { force: true });
  await createFirstAdmin(join(identity, 'users.json'), ADMIN_PASSWORD);
  writeSecret('identity', 'config.json', { redisUrl: backends.redisUrl });
  const salesClient = clients.find((client) => client.clientId === 'sales-service')!;
  const amqpUrlOf = (deployment: string) => backends.amqpUrlOf?.[deployment] ?? backends.amqpUrl;
  for (const deployment of deploymentsOf(twoOfEach).filter((name) => /^stock(-b)?$/.test(name)))
    writeSecret(deployment, 'config.json', { databaseUrl: backends.stockDatabaseUrl, amqpUrl: amqpUrlOf(deployment) });
  for (const deployment of deploymentsOf(twoOfEach).filter((name) => /^sales(-b)?$/.test(name)))
    writeSecret(deployment, 'config.json', {
      databaseUrl: backends.salesDatabaseUrl,
      amqpUrl: amqpUrlOf(deployment),
      stockClientSecret: salesClient.clientSecret,
    });
  writeSecret('gateway', 'config.json', { redisUrl: backends.redisUrl });
  // Stripe's test keys are sk_test_ and letters or digits: hex.
  const apiKey = `sk_test_${randomBytes(24).toString('hex')}`;
  writeSecret('payments', 'config.json', { apiKey });
  for (const deployment of deploymentsOf(twoOfEach).filter((name) => existsSync(secretsFolder(name)))) {
    chownSync(secretsFolder(deployment), APP_UID, APP_UID);
    for (const file of readdirSync(secretsFolder(deployment)))
      chownSync(join(secretsFolder(deployment), file), APP_UID, APP_UID);
  }
  const keys = JSON.parse(readFileSync(join(identity, 'keys.json'), 'utf8')) as { keys: { d: string }[] };
  const adminPassword = readFileSync(ADMIN_PASSWORD, 'utf8').trim();
  return [...clients.map((client) => client.clientSecret), ...keys.keys.map((key) => key.d), adminPassword, apiKey];
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
export const podOf = (deployment: string) => `${deployment}-pod-0`;
/** The container of a Deployment's pod; a second replica's container keeps its service's name. */
export const containerOf = (deployment: string) => `${podOf(deployment)}-${deployment.replace(/-b$/, '')}`;

/** Each container's state and last lines: what a failed start leaves to read. */
function lastLogs(deployments: readonly string[]): string {
  const said = (args: string[]) => {
    try {
      return podman(args, 10_000);
    } catch (error) {
      return (error as Error).message;
    }
  };
  return deployments
    .map((deployment) => {
      const container = containerOf(deployment);
      const state = said([
        'inspect',
        '--format',
        '{{.State.Status}}, exit {{.State.ExitCode}}, restarts {{.RestartCount}}',
        container,
      ]);
      return `--- ${deployment} (${state})\n${said(['logs', '--tail', '15', container])}`;
    })
    .join('\n');
}

interface PodSpec {
  containers: {
    name: string;
    env?: { name: string; value: string }[];
    envFrom?: { configMapRef?: { name: string } }[];
  }[];
  volumes: { name: string; hostPath?: { path: string } }[];
}
type DeploymentLike = KubeObject & { spec: { template: { spec: PodSpec } } };
type ConfigMapLike = KubeObject & { data: Record<string, string> };

/** The ConfigMap a Deployment's container reads its settings from. */
function configMapOf(objects: readonly KubeObject[], deployment: string): ConfigMapLike {
  const found = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment) as DeploymentLike;
  const name = found.spec.template.spec.containers[0]!.envFrom![0]!.configMapRef!.name;
  return objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name) as ConfigMapLike;
}

/**
 * The objects with a second replica of stock and sales (SECOND_REPLICAS): a copy of each Deployment on its own port
 * and secrets folder, the gateway routing to both, and sales reaching stock through the gateway, as the base has it
 * (a replica of stock may then stop without sales noticing).
 */
export function withSecondReplicas(objects: readonly KubeObject[]): KubeObject[] {
  const copy = structuredClone(objects) as KubeObject[];
  for (const [service, replica] of Object.entries(SECOND_REPLICAS)) {
    const original = copy.find((o) => o.kind === 'Deployment' && o.metadata.name === service) as DeploymentLike;
    const second = structuredClone(original);
    (second.metadata as { name: string }).name = replica.name;
    const pod = second.spec.template.spec;
    pod.containers[0]!.env = [...(pod.containers[0]!.env ?? []), { name: 'PORT', value: String(replica.port) }];
    pod.volumes.find((volume) => volume.name === 'secrets')!.hostPath!.path = secretsFolder(replica.name);
    copy.splice(copy.indexOf(original) + 1, 0, second);
  }
  const port = (name: string) => SERVICES.find((service) => service.name === name)!.port;
  const gateway = configMapOf(copy, 'gateway');
  gateway.data.STOCK_URL = [port('stock'), SECOND_REPLICAS.stock.port].map((p) => `http://127.0.0.1:${p}`).join(',');
  gateway.data.SALES_URL = [port('sales'), SECOND_REPLICAS.sales.port].map((p) => `http://127.0.0.1:${p}`).join(',');
  configMapOf(copy, 'sales').data.STOCK_URL = `http://127.0.0.1:${port('gateway')}`;
  return copy;
}

/** The objects with `settings` on top of each named Deployment's ConfigMap. */
function withSettings(objects: readonly KubeObject[], settings: LocalPlayOptions['settings'] = {}): KubeObject[] {
  const copy = structuredClone(objects) as KubeObject[];
  for (const [deployment, values] of Object.entries(settings))
    Object.assign(configMapOf(copy, deployment).data, values);
  return copy;
}

/** The port a played Deployment listens on. */
const portOf = (deployment: string) =>
  Object.values(SECOND_REPLICAS).find((replica) => replica.name === deployment)?.port ??
  SERVICES.find((service) => service.name === deployment)!.port;

/**
 * Registers sales' webhook endpoint with the provider, for every event, as start:system does; answers its `whsec_…`.
 */
async function registerPaymentEvents(apiKey: string): Promise<string> {
  const response = await fetch(`${PAYMENTS_URL}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ url: PAYMENT_EVENTS_URL, 'enabled_events[0]': '*', description: 'sales' }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { secret?: string };
  if (!response.ok || !body.secret)
    throw new Error(`the payment provider did not register sales' webhook endpoint (${response.status})`);
  return body.secret;
}

/**
 * Plays the local overlay with podman, its images tagged `tag` (built by `pnpm images`), on the secrets
 * writeLocalSecrets wrote, in two steps, as start:system starts the processes: the payment provider first, then,
 * once sales' webhook endpoint is registered with it and its signing secret is in sales' secrets, everything else;
 * and waits until every service is ready. A failure takes down what was played, and says why with the containers'
 * last lines.
 */
export async function playLocal(tag: string, options: LocalPlayOptions = {}): Promise<LocalSystem> {
  const { readyWithinMs = 120_000, twoOfEach = false } = options;
  // A play replaces the one before, and whatever a run that was killed left.
  removeLocalPods();
  const deployments = deploymentsOf(twoOfEach);
  for (const deployment of deployments)
    if (!(await portFree(portOf(deployment))))
      throw new Error(`port ${portOf(deployment)} (${deployment}) is in use on this machine: stop what listens there`);
  const rendered = withImageTag(renderOverlay('local'), tag);
  const objects = withSettings(twoOfEach ? withSecondReplicas(rendered) : rendered, options.settings);
  const problems = manifestProblems(objects);
  if (problems.length > 0) throw new Error(`the local overlay fails its checks:\n${problems.join('\n')}`);
  const played = objects.filter((object: KubeObject) => PLAYED_KINDS.has(object.kind));
  const first = [
    played.find((o) => o.kind === 'Deployment' && o.metadata.name === 'payments')!,
    configMapOf(played, 'payments'),
  ];
  const rest = played.filter((object) => !first.includes(object));
  mkdirSync(LOCAL_STATE, { recursive: true, mode: 0o700 });
  writeFileSync(PLAYED, played.map((object) => stringify(object)).join('---\n'));
  const playFile = (name: string, part: readonly KubeObject[]) => {
    const path = join(LOCAL_STATE, name);
    writeFileSync(path, part.map((object) => stringify(object)).join('---\n'));
    podman(['kube', 'play', path], 120_000);
  };
  const until = Date.now() + readyWithinMs;
  const waitReady = async (names: readonly string[]) => {
    for (const deployment of names) {
      const path = deployment === 'sample-app' ? '/swagger/' : '/health/ready';
      if (!(await readyWithin(`http://127.0.0.1:${portOf(deployment)}${path}`, until)))
        throw new Error(`${deployment} was not ready within ${readyWithinMs / 1000} s\n${lastLogs(deployments)}`);
    }
  };
  try {
    playFile('played-payments.yaml', first);
    await waitReady(['payments']);
    const { apiKey } = JSON.parse(readFileSync(join(secretsFolder('payments'), 'config.json'), 'utf8')) as {
      apiKey: string;
    };
    const paymentsWebhookSecret = await registerPaymentEvents(apiKey);
    for (const deployment of deployments.filter((name) => /^sales(-b)?$/.test(name))) {
      const path = join(secretsFolder(deployment), 'config.json');
      const config = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      writeSecret(deployment, 'config.json', { ...config, paymentsApiKey: apiKey, paymentsWebhookSecret });
    }
    playFile('played-services.yaml', rest);
    await waitReady(deployments.filter((name) => name !== 'payments'));
    return {
      gateway: 'http://localhost:8000',
      clientsFile: join(secretsFolder('identity'), 'clients.json'),
      playedFile: PLAYED,
      payments: PAYMENTS_URL,
      paymentsApiKey: apiKey,
      paymentsWebhookSecret,
      adminPasswordFile: ADMIN_PASSWORD,
      deployments,
    };
  } catch (error) {
    takeDownLocal();
    throw error;
  }
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
  const pods = deploymentsOf(true).map(podOf);
  podman(['pod', 'rm', '--force', '--ignore', '--time', '20', ...pods], 120_000);
}
