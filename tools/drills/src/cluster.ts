import { CLIENTS, SALES, STOCK, tokenFor } from '@commerce/identity/testing';
import {
  adminQuery,
  databaseUrl,
  type FreezableProxy,
  freePort,
  freezableProxy,
  RABBITMQ_URL,
  rabbitmqctl,
  vhostUrl,
} from '@platform/test-kit';
import { containerOf, containersEnv, podOf, playLocal, takeDownLocal, writeLocalSecrets } from '@tools/deploy';
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { call, type Outcome } from './load';
import {
  containerName,
  containerPid,
  IMAGE_UID,
  imagesTag,
  inImages,
  inPods,
  killContainer,
  podman,
  spawnContainer,
} from './containers';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAINS = {
  identity: 'packages/identity/src/main.ts',
  stock: 'packages/stock/service/src/main.ts',
  sales: 'packages/sales/service/src/main.ts',
  gateway: 'packages/gateway/src/main.ts',
  payments: 'packages/offline-payments/src/main.ts',
} as const;

export type Role = keyof typeof MAINS;

/** Whether the processes run the built JavaScript (dist/<role>.js, ADR 0025) rather than their sources under tsx. */
let built = false;

/**
 * The cluster's processes run what `pnpm build` made, as production does: a benchmark measures that (the caller builds
 * first). The drills keep running the sources, so a drill never runs a stale build.
 */
export function runBuilt(): void {
  built = true;
}

/** One process of the cluster: its role, its fixed port (a restart keeps it), its environment. */
export class Instance {
  child: ChildProcess | undefined;
  /** The last lines it wrote (its log), for a failure report. */
  readonly tail: string[] = [];
  /** The last warnings and errors it logged, kept apart from the tail: a burst of access lines would push them out. */
  readonly problems: string[] = [];
  /** Times it was started, killed, restarted. */
  starts = 0;
  /** Log entries a drill asked to see (by their `message`), from every start of the process. */
  private readonly watched = new Map<string, Record<string, unknown>[]>();
  /**
   * Set when its cluster stops: a drill still running (an interrupted one) may not start it again behind the cleanup's
   * back.
   */
  retired = false;

  constructor(
    readonly role: Role,
    readonly name: string,
    readonly port: number,
    readonly env: Record<string, string>,
    /** With `--pods`, the Deployment whose pod it is. */
    readonly deployment?: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Where its /metrics is: the services serve it on their port, the gateway on its metrics listener (METRICS_PORT). */
  get metricsUrl(): string {
    return this.env.METRICS_PORT ? `http://127.0.0.1:${this.env.METRICS_PORT}` : this.url;
  }

  /** The service's own process: in a container, the host's PID of the service, not podman's. */
  get pid(): number | undefined {
    if (this.deployment) return containerPid(containerOf(this.deployment));
    return this.contained ? this.containerPid : this.child?.pid;
  }

  private containerPid: number | undefined;

  /**
   * Whether it runs in a container of its own (`--images`): the offline payment provider, a test double, stays a
   * process there, as when those figures were taken; `--pods` plays its image with the rest.
   */
  private get contained(): boolean {
    return inImages() && this.role !== 'payments';
  }

  private program(): string[] {
    return built
      ? ['--enable-source-maps', join(ROOT, 'dist', `${this.role}.js`)]
      : ['--import', TSX, join(ROOT, MAINS[this.role])];
  }

  /** Starts it (again) and resolves once /health/live answers. */
  async start(): Promise<void> {
    if (this.retired) throw new Error(`${this.name} is not started again: its cluster is stopping`);
    if (this.deployment) return this.startPod(this.deployment);
    const child = this.contained
      ? spawnContainer(this.role, containerName(this.name), { ...this.env, PORT: String(this.port), HOST: '127.0.0.1' })
      : spawn(process.execPath, this.program(), {
          cwd: ROOT,
          env: { ...process.env, ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
    this.child = child;
    this.starts++;
    LIVE.add(child);
    child.once('exit', () => LIVE.delete(child));
    child.stdout.on(
      'data',
      lines((line) => this.read(line)),
    );
    child.stderr.on(
      'data',
      lines((line) => this.read(line)),
    );
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        await closed; // its last words are still in the pipe
        throw new Error(
          `${this.name} exited (${child.exitCode ?? child.signalCode}) while starting: ${this.tail.slice(-5).join(' | ')}`,
        );
      }
      const live = await fetch(`${this.url}/health/live`, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.status === 200,
        () => false,
      );
      if (live) {
        if (this.contained) this.containerPid = containerPid(containerName(this.name));
        return;
      }
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not come up in 60 s:\n${this.tail.slice(-10).join('\n')}`);
      await sleep(100);
    }
  }

  /**
   * With `--pods`: its pod started again (podman pod start, as a node starts a pod it was given), its log followed
   * from now on; resolves once /health/live answers.
   */
  private async startPod(deployment: string): Promise<void> {
    podman(['pod', 'start', podOf(deployment)]);
    this.starts++;
    this.follow();
    const deadline = Date.now() + 60_000;
    for (;;) {
      const live = await fetch(`${this.url}/health/live`, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.status === 200,
        () => false,
      );
      if (live) return;
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not come up in 60 s:\n${this.tail.slice(-10).join('\n')}`);
      await sleep(100);
    }
  }

  /** With `--pods`: its container's log, from now on, into its tail (the pod was played, not started by the drill). */
  follow(): void {
    const container = containerOf(this.deployment!);
    const child = spawn('podman', ['logs', '--follow', '--since', new Date().toISOString(), container], {
      env: containersEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    LIVE.add(child);
    child.once('exit', () => LIVE.delete(child));
    child.stdout.on(
      'data',
      lines((line) => this.read(line)),
    );
    child.stderr.on(
      'data',
      lines((line) => this.read(line)),
    );
  }

  /**
   * With `--pods`: SIGTERM is `podman pod stop` with the Deployment's terminationGracePeriodSeconds (30 s), as a
   * node stops a pod; SIGKILL is `podman pod kill`. Answers the service's exit code once the whole pod has exited:
   * podman 4.3 finishes a killed pod's stop after `pod kill` returns, and a pod started again before that is stopped
   * again under the new container (its infra container exits, then the service with 137).
   */
  private async stopPod(deployment: string, signal: NodeJS.Signals): Promise<number | string> {
    const pod = podOf(deployment);
    if (signal === 'SIGKILL') podman(['pod', 'kill', '--signal', 'KILL', pod]);
    else podman(['pod', 'stop', '--time', '30', pod]);
    const container = containerOf(deployment);
    for (let i = 0; i < 300; i++) {
      const [state, code] = podman(['inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', container])
        .trim()
        .split(' ');
      const podState = podman(['pod', 'inspect', '--format', '{{.State}}', pod]).trim();
      if (state === 'exited' && podState === 'Exited') return signal === 'SIGKILL' ? 'SIGKILL' : Number(code);
      await sleep(100);
    }
    return `not exited 30 s after podman pod ${signal === 'SIGKILL' ? 'kill' : 'stop'}`;
  }

  /**
   * Sends `signal` and waits for the process to exit; answers its exit code
   * (or the signal). A process still there after `killAfterMs` gets SIGKILL,
   * so no drill waits for ever on one that hangs (its answer then says so).
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', killAfterMs = 30_000): Promise<number | string> {
    if (this.deployment) return this.stopPod(this.deployment, signal);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null)
      return child?.exitCode ?? child?.signalCode ?? 'not running';
    const exited = new Promise<number | string>((resolve) =>
      child.once('exit', (code, sig) => resolve(code ?? sig ?? 'unknown')),
    );
    // podman run passes SIGTERM on to the container; a SIGKILL would end podman alone.
    if (this.contained && signal === 'SIGKILL') killContainer(containerName(this.name));
    else child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), killAfterMs)));
    const first = await Promise.race([exited, hung]);
    clearTimeout(timer);
    if (first !== 'hung') return first;
    if (this.contained) killContainer(containerName(this.name));
    child.kill('SIGKILL');
    return `did not exit within ${killAfterMs} ms of ${signal}: killed (${await exited})`;
  }

  /**
   * Every entry logged with `message` from now on (JSON lines), across restarts; the array fills as the process logs.
   */
  watch(message: string): Record<string, unknown>[] {
    let entries = this.watched.get(message);
    if (!entries) this.watched.set(message, (entries = []));
    return entries;
  }

  /** Takes in one line of its log. */
  private read(line: string): void {
    this.tail.push(line);
    if (this.tail.length > 200) this.tail.splice(0, this.tail.length - 200);
    if (!line.startsWith('{')) return;
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.level === 'warn' || entry.level === 'error') keepLast(this.problems, line, 200);
      this.watched.get(String(entry.message))?.push(entry);
    } catch {
      // not a log entry
    }
  }

  /** Whether its readiness answers 200 now. */
  async ready(): Promise<boolean> {
    return fetch(`${this.url}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
  }

  /** Resident memory of the process, in MiB (from /proc). */
  rssMiB(): number | undefined {
    if (!this.pid) return undefined;
    try {
      const line = readFileSync(`/proc/${this.pid}/status`, 'utf8')
        .split('\n')
        .find((l) => l.startsWith('VmRSS:'));
      return line ? Number(line.replace(/\D+/g, '')) / 1024 : undefined;
    } catch {
      return undefined;
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whole lines from a stream's chunks: a chunk may end in the middle of one, which waits for the next chunk. */
export function lines(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  let rest = '';
  return (chunk) => {
    const parts = (rest + String(chunk)).split('\n');
    rest = parts.pop()!;
    for (const part of parts) if (part) onLine(part);
  };
}

/** Every process a drill started and that has not exited yet. */
const LIVE = new Set<ChildProcess>();
// However the drill's own process ends (a failed assertion, mocha's --exit, an uncaught error), it takes them along.
process.once('exit', () => {
  for (const child of LIVE) child.kill('SIGKILL');
});

/** What must be undone if the run is interrupted mid-fault (a stopped PostgreSQL started again). */
const RESTORES = new Set<() => Promise<void>>();

/** Registers `restore` to run if the run is interrupted before the answer is called. */
export function onInterrupt(restore: () => Promise<void>): () => void {
  RESTORES.add(restore);
  return () => RESTORES.delete(restore);
}

/** Clusters started and not stopped yet: what `stopAll` stops when the run is interrupted. */
const RUNNING = new Set<Cluster>();

/** Undoes a fault in progress and stops every cluster still running (pnpm drills calls it on SIGINT and SIGTERM). */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...RESTORES].map((restore) => restore()));
  await Promise.allSettled([...RUNNING].map((cluster) => cluster.stop()));
}

export interface ClusterOptions {
  readonly stock?: number;
  readonly sales?: number;
  /** Settings every stock and sales instance gets on top of the cluster's. */
  readonly serviceEnv?: Record<string, string>;
  readonly stockEnv?: Record<string, string>;
  readonly salesEnv?: Record<string, string>;
  readonly gatewayEnv?: Record<string, string>;
  /**
   * How long the issuer's access tokens live (the drill's own and sales' for stock); an hour unless a drill wants the
   * issuer to matter.
   */
  readonly accessTokenTtlSeconds?: number;
  /**
   * Instances (by name, e.g. `stock a`) whose connection to RabbitMQ goes through a freezable TCP proxy:
   * `brokerLink(name)`.
   */
  readonly proxiedBroker?: readonly string[];
}

/**
 * The drill's clients: stock:write for products and adjustments; orders:read and orders:write of one buyer;
 * orders:admin for every order. A buyer pays at the payment provider, not through the system: Cluster.confirmPayment.
 */
export type Client = 'stockWriter' | 'buyer' | 'ordersAdmin';
const CLIENT_OF: Record<Client, readonly [clientId: string, resource: string]> = {
  stockWriter: ['inventory-sync', STOCK],
  buyer: ['buyer-a', SALES],
  ordersAdmin: ['orders-admin', SALES],
};

/** The offline payment provider's secret key: sales' and the buyers' (a test double's, on loopback). */
const PAYMENTS_API_KEY = 'sk_test_drills_offline';

/**
 * The whole system as an operator runs it at scale: an issuer, N stock and M
 * sales instances on one PostgreSQL database per service and one RabbitMQ
 * vhost, and a gateway in front of all of them; sales reaches stock through
 * the gateway too, and takes payments from one offline payment provider (a
 * test double: a process even with `--images`, a pod with `--pods`), whose webhooks reach sales
 * through the gateway. Every process is a real one, on loopback, with a fixed
 * port, so it can be killed and started again where the others expect it.
 */
export class Cluster {
  readonly instances: Instance[] = [];
  private readonly suffix = `${process.pid}_${Date.now().toString(36)}`;
  readonly databases = { stock: `drill_stock_${this.suffix}`, sales: `drill_sales_${this.suffix}` };
  readonly vhost = `drill_${this.suffix}`;
  private readonly folder = mkdtempSync(join(tmpdir(), 'drill-'));
  private readonly proxies = new Map<string, FreezableProxy>();
  /** Each client's current token, or the request for one under way (callers at once share it). */
  private readonly tokens = new Map<Client, { token: string; at: number } | { pending: Promise<string> }>();
  private stopping: Promise<void> | undefined;
  /** The gateway's port is named (in the issuer's URL) long before the gateway binds it: no port is given twice. */
  private readonly freePort = distinctPorts();

  /** The offline payment provider's key: the drill's own, or with `--pods` the one kube:play wrote to its secret. */
  private paymentsApiKey = PAYMENTS_API_KEY;

  private constructor(private readonly options: ClusterOptions) {}

  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const cluster = new Cluster(options);
    RUNNING.add(cluster);
    try {
      await cluster.boot();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The freezable link between `name` and RabbitMQ (ClusterOptions.proxiedBroker). */
  brokerLink(name: string): FreezableProxy {
    const proxy = this.proxies.get(name);
    if (!proxy) throw new Error(`${name} does not reach RabbitMQ through a proxy`);
    return proxy;
  }

  /**
   * A token for `client`, from the issuer through the gateway, taken no longer
   * than `maxAgeMs` ago (by default half the tokens' life, as a client renews
   * before expiry). While the issuer or the gateway is down this throws once
   * the token held is too old; `maxAgeMs` 0 always asks the issuer.
   */
  token(client: Client, maxAgeMs = ((this.options.accessTokenTtlSeconds ?? 3600) * 1000) / 2): Promise<string> {
    const held = this.tokens.get(client);
    if (held && 'token' in held && Date.now() - held.at < maxAgeMs) return Promise.resolve(held.token);
    if (held && 'pending' in held) return held.pending;
    const [clientId, resource] = CLIENT_OF[client];
    const pending = tokenFor(`${this.url}/identity`, clientId, resource).then(
      (token) => {
        this.tokens.set(client, { token, at: Date.now() });
        return token;
      },
      (error: unknown) => {
        if (held && 'token' in held) this.tokens.set(client, held);
        else this.tokens.delete(client);
        throw error;
      },
    );
    this.tokens.set(client, { pending });
    return pending;
  }

  /**
   * A new token for `client`, asked of the issuer through the gateway now, whatever is held: it throws while either is
   * down.
   */
  askIssuer(client: Client): Promise<string> {
    return tokenFor(`${this.url}/identity`, ...CLIENT_OF[client]);
  }

  get gateway(): Instance {
    return this.of('gateway')[0]!;
  }

  of(role: Role): Instance[] {
    return this.instances.filter((instance) => instance.role === role);
  }

  /** The offline payment provider: one process, a test double; sales and the buyers call it, and it calls sales. */
  get payments(): Instance {
    return this.of('payments')[0]!;
  }

  /** The processes of the system itself, the payment provider (a test double) left out. */
  get systemInstances(): Instance[] {
    return this.instances.filter((instance) => instance.role !== 'payments');
  }

  /**
   * The buyer's part of paying an order: confirms its PaymentIntent at the provider with a card that pays. The order
   * becomes paid once the provider's webhook reaches sales.
   */
  confirmPayment(intentId: string): Promise<Outcome> {
    return call(`${this.payments.url}/v1/payment_intents/${intentId}/confirm`, {
      method: 'POST',
      token: this.paymentsApiKey,
      form: { payment_method: 'pm_card_visa' },
    });
  }

  /** The gateway's URL: where every client request goes. */
  get url(): string {
    return this.gateway.url;
  }

  /** A database of the cluster, for queries a drill checks the truth with. */
  query(service: 'stock' | 'sales', sql: string): Promise<Record<string, unknown>[]> {
    return adminQuery(sql, databaseUrl(this.databases[service]));
  }

  private async boot(): Promise<void> {
    await rabbitmqctl('add_vhost', this.vhost);
    await rabbitmqctl('set_permissions', '-p', this.vhost, 'guest', '.*', '.*', '.*');
    if (inPods()) return this.bootPods(imagesTag()!);
    const clientsFile = join(this.folder, 'clients.json');
    writeFileSync(clientsFile, JSON.stringify(CLIENTS), { mode: 0o600 });
    // In containers the service runs as the images' user, who must own its files (identity writes its keys here).
    if (inImages()) for (const path of [this.folder, clientsFile]) chownSync(path, IMAGE_UID, IMAGE_UID);
    const gatewayPort = await this.freePort();
    const issuer = `http://127.0.0.1:${gatewayPort}/identity`;
    const identity = new Instance('identity', 'identity', await this.freePort(), {
      ISSUER: issuer,
      IDENTITY_CLIENTS_FILE: clientsFile,
      IDENTITY_KEYS_FILE: join(this.folder, 'keys.json'),
      // An hour unless a drill wants the issuer to matter; the drill's clients renew theirs at half their life.
      ACCESS_TOKEN_TTL_SECONDS: String(this.options.accessTokenTtlSeconds ?? 3600),
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY_MS: '0',
    });
    this.instances.push(identity);
    await identity.start();
    const payments = await this.startPayments(`http://127.0.0.1:${gatewayPort}/api/payment-events`);
    const seller = CLIENTS.find((client) => client.clientId === 'inventory-sync')!;
    const common = {
      AMQP_URL: vhostUrl(this.vhost),
      AUTH_ISSUER: issuer,
      AUTH_DISCOVERY_URL: `${identity.url}/identity/.well-known/openid-configuration`,
      DB_CREATE_DATABASE: 'true',
      LOG_LEVEL: 'warn',
      OUTBOX_POLL_MS: '100',
      // Long enough for the gateway, asking every 200 ms, to stop routing here before the instance stops accepting.
      SHUTDOWN_DELAY_MS: '1500',
      ...this.options.serviceEnv,
    };
    const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    // The instance's own broker URL: the vhost's, or the same through a proxy the drill can freeze or cut.
    const brokerFor = async (name: string) => {
      if (!this.options.proxiedBroker?.includes(name)) return {};
      const proxy = await freezableProxy(Number(new URL(RABBITMQ_URL).port || 5672), new URL(RABBITMQ_URL).hostname);
      this.proxies.set(name, proxy);
      const url = new URL(common.AMQP_URL);
      url.host = `127.0.0.1:${proxy.port}`;
      return { AMQP_URL: url.toString() };
    };
    for (let i = 0; i < (this.options.stock ?? 2); i++) {
      const name = `stock ${String.fromCharCode(97 + i)}`;
      this.instances.push(
        new Instance('stock', name, await this.freePort(), {
          ...common,
          DATABASE_URL: databaseUrl(this.databases.stock),
          ...this.options.stockEnv,
          ...(await brokerFor(name)),
        }),
      );
    }
    for (let i = 0; i < (this.options.sales ?? 2); i++) {
      const name = `sales ${String.fromCharCode(97 + i)}`;
      this.instances.push(
        new Instance('sales', name, await this.freePort(), {
          ...common,
          DATABASE_URL: databaseUrl(this.databases.sales),
          STOCK_URL: gatewayUrl,
          STOCK_CLIENT_ID: seller.clientId,
          STOCK_CLIENT_SECRET: seller.clientSecret,
          ...payments,
          ...this.options.salesEnv,
          ...(await brokerFor(name)),
        }),
      );
    }
    // Several instances of a service start at once: migrations take an advisory lock.
    await Promise.all([...this.of('stock'), ...this.of('sales')].map((instance) => instance.start()));
    const gateway = new Instance('gateway', 'gateway', gatewayPort, {
      // Its issuer's origin, never a client's Host; its metrics listener on a port of its own, kept across restarts.
      PUBLIC_URL: gatewayUrl,
      METRICS_PORT: String(await this.freePort()),
      STOCK_URL: this.of('stock')
        .map((i) => i.url)
        .join(','),
      SALES_URL: this.of('sales')
        .map((i) => i.url)
        .join(','),
      IDENTITY_URL: identity.url,
      AUTH_ISSUER: issuer,
      AUTH_DISCOVERY_URL: common.AUTH_DISCOVERY_URL,
      UPSTREAM_CHECK_MS: '200',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY_MS: '0',
      ...this.options.gatewayEnv,
    });
    this.instances.push(gateway);
    await gateway.start();
    await this.waitUntilReady();
    // The first tokens, while every process is known to be up.
    await Promise.all(Object.keys(CLIENT_OF).map((client) => this.token(client as Client)));
  }

  /**
   * With `--pods`: the local overlay played as `pnpm kube:play` plays it (tools/deploy's playLocal), from the images
   * tagged `tag`, with a second replica of stock and sales, on the drill's databases and vhost and its clients; the
   * manifests' own settings (stop timings, pools, probes) with the drill's on top: quieter logs, the token life it
   * asks for, no rate limit at the gateway and the outbox polled as in every drill. `stock a` is the Deployment
   * stock, `stock b` its second replica stock-b (so with sales); its broker link goes through a proxy when asked.
   */
  private async bootPods(tag: string): Promise<void> {
    const amqpUrl = vhostUrl(this.vhost);
    const amqpUrlOf: Record<string, string> = {};
    if (this.options.proxiedBroker?.includes('stock a')) {
      const proxy = await freezableProxy(Number(new URL(RABBITMQ_URL).port || 5672), new URL(RABBITMQ_URL).hostname);
      this.proxies.set('stock a', proxy);
      const url = new URL(amqpUrl);
      url.host = `127.0.0.1:${proxy.port}`;
      amqpUrlOf.stock = url.toString();
    }
    await writeLocalSecrets(
      {
        stockDatabaseUrl: databaseUrl(this.databases.stock),
        salesDatabaseUrl: databaseUrl(this.databases.sales),
        amqpUrl,
        redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        clients: CLIENTS.map((client) => ({ ...client, scopes: [...client.scopes] })),
        amqpUrlOf,
      },
      { twoOfEach: true },
    );
    const quiet = { LOG_LEVEL: 'warn' };
    const service = { ...quiet, OUTBOX_POLL_MS: '100', ...this.options.serviceEnv };
    const system = await playLocal(tag, {
      twoOfEach: true,
      settings: {
        identity: { ...quiet, ACCESS_TOKEN_TTL_SECONDS: String(this.options.accessTokenTtlSeconds ?? 3600) },
        payments: quiet,
        stock: { ...service, ...this.options.stockEnv },
        sales: { ...service, ...this.options.salesEnv },
        gateway: { ...quiet, RATE_LIMIT_PER_MINUTE: '0', ...this.options.gatewayEnv },
      },
    });
    this.paymentsApiKey = system.paymentsApiKey;
    const pod = (role: Role, name: string, port: number, deployment: string, env: Record<string, string> = {}) =>
      new Instance(role, name, port, env, deployment);
    this.instances.push(
      pod('identity', 'identity', 8083, 'identity'),
      pod('payments', 'payments', 8084, 'payments'),
      pod('stock', 'stock a', 8080, 'stock'),
      pod('stock', 'stock b', 8180, 'stock-b'),
      pod('sales', 'sales a', 8082, 'sales'),
      pod('sales', 'sales b', 8182, 'sales-b'),
      // Its metrics listener is the overlay's METRICS_PORT.
      pod('gateway', 'gateway', 8000, 'gateway', { METRICS_PORT: '9464' }),
    );
    for (const instance of this.instances) {
      instance.starts++;
      instance.follow();
    }
    await this.waitUntilReady();
    await Promise.all(Object.keys(CLIENT_OF).map((client) => this.token(client as Client)));
  }

  /**
   * Starts the offline payment provider and registers sales' webhook endpoint with it, at `eventsUrl`, for every event;
   * answers the settings every sales instance gets to take payments from it.
   */
  private async startPayments(eventsUrl: string): Promise<Record<string, string>> {
    const provider = new Instance('payments', 'payments', await this.freePort(), {
      PAYMENTS_API_KEY,
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY_MS: '0',
    });
    this.instances.push(provider);
    await provider.start();
    const endpoint = await call(`${provider.url}/v1/webhook_endpoints`, {
      method: 'POST',
      token: PAYMENTS_API_KEY,
      form: { url: eventsUrl, 'enabled_events[0]': '*', description: 'sales' },
    });
    const secret = 'status' in endpoint && (endpoint.body as { secret?: string } | undefined)?.secret;
    if (!secret)
      throw new Error(`the payment provider did not register sales' webhook endpoint: ${JSON.stringify(endpoint)}`);
    return { PAYMENTS_API_KEY, PAYMENTS_URL: provider.url, PAYMENTS_WEBHOOK_SECRET: secret };
  }

  /** Resolves once every instance's readiness answers 200 (the gateway's says every service has a ready instance). */
  async waitUntilReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(this.instances.map((instance) => instance.ready()));
      if (states.every(Boolean)) return;
      if (Date.now() > deadline)
        throw new Error(
          `not ready after ${timeoutMs} ms: ${this.instances
            .filter((_, i) => !states[i])
            .map((i) => i.name)
            .join(', ')}`,
        );
      await sleep(200);
    }
  }

  /**
   * Stops every process (the gateway first; one that hangs gets SIGKILL),
   * then the proxies, then drops the databases and the vhost. Each step runs
   * whatever the one before it did; once, however often it is called.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const instance of this.instances) instance.retired = true;
      if (inPods()) takeDownLocal();
      else
        for (const role of ['gateway', 'sales', 'payments', 'stock', 'identity'] as const) {
          await Promise.allSettled(this.of(role).map((instance) => instance.stop('SIGTERM', 15_000)));
        }
      await Promise.allSettled([...this.proxies.values()].map((proxy) => proxy.close()));
      for (const name of Object.values(this.databases))
        await adminQuery(`drop database if exists "${name}" with (force)`).catch(() => undefined);
      await rabbitmqctl('delete_vhost', this.vhost).catch(() => undefined);
      rmSync(this.folder, { recursive: true, force: true });
      RUNNING.delete(this);
    })();
    return this.stopping;
  }
}

/**
 * Free ports, none of them twice. A port is free when drawn but nobody holds it until its process binds it: another
 * draw meanwhile may get it again, and a process that lost the race to bind it exits while the one that won answers
 * in its place (a stock instance once answered the gateway's token requests with 404s).
 */
export function distinctPorts(draw: () => Promise<number> = freePort): () => Promise<number> {
  const given = new Set<number>();
  return async () => {
    for (;;) {
      const port = await draw();
      if (given.has(port)) continue;
      given.add(port);
      return port;
    }
  };
}

function keepLast(lines: string[], line: string, limit: number): void {
  lines.push(line);
  if (lines.length > limit) lines.splice(0, lines.length - limit);
}
