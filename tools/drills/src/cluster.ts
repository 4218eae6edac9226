import { CLIENTS, tokenFor } from '@commerce/identity-test-kit';
import { adminQuery, databaseUrl, freePort, rabbitmqctl, vhostUrl } from '@platform/test-kit';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MAINS = {
  identity: 'packages/identity/src/main.ts',
  stock: 'packages/stock/service/src/main.ts',
  sales: 'packages/sales/service/src/main.ts',
  gateway: 'packages/gateway/src/main.ts',
} as const;

export type Role = keyof typeof MAINS;

/** One process of the cluster: its role, its fixed port (a restart keeps it), its environment. */
export class Instance {
  child: ChildProcess | undefined;
  /** The last lines it wrote (its log), for a failure report. */
  readonly tail: string[] = [];
  /** Times it was started, killed, restarted. */
  starts = 0;

  constructor(
    readonly role: Role,
    readonly name: string,
    readonly port: number,
    readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts it (again) and resolves once /health/live answers. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, ['--import', TSX, join(ROOT, MAINS[this.role])], {
      cwd: ROOT,
      env: { ...process.env, ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.starts++;
    const keep = (chunk: Buffer) => {
      this.tail.push(...String(chunk).split('\n').filter(Boolean));
      if (this.tail.length > 200) this.tail.splice(0, this.tail.length - 200);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        await closed; // its last words are still in the pipe
        throw new Error(`${this.name} exited (${child.exitCode ?? child.signalCode}) while starting: ${this.tail.slice(-5).join(' | ')}`);
      }
      const live = await fetch(`${this.url}/health/live`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.status === 200, () => false);
      if (live) return;
      if (Date.now() > deadline) throw new Error(`${this.name} did not come up in 60 s:\n${this.tail.slice(-10).join('\n')}`);
      await sleep(100);
    }
  }

  /** Sends `signal` and waits for the process to exit; answers its exit code (or the signal). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? child?.signalCode ?? 'not running';
    const exited = new Promise<number | string>((resolve) => child.once('exit', (code, sig) => resolve(code ?? sig ?? 'unknown')));
    child.kill(signal);
    return exited;
  }

  /** Whether its readiness answers 200 now. */
  async ready(): Promise<boolean> {
    return fetch(`${this.url}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.status === 200, () => false);
  }

  /** Resident memory of the process, in MiB (from /proc). */
  rssMiB(): number | undefined {
    if (!this.pid) return undefined;
    try {
      const line = readFileSync(`/proc/${this.pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
      return line ? Number(line.replace(/\D+/g, '')) / 1024 : undefined;
    } catch {
      return undefined;
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface ClusterOptions {
  readonly stock?: number;
  readonly sales?: number;
  /** Settings every stock and sales instance gets on top of the cluster's. */
  readonly serviceEnv?: Record<string, string>;
  readonly stockEnv?: Record<string, string>;
  readonly gatewayEnv?: Record<string, string>;
}

export interface Tokens {
  /** stock:write, for adjustments and products. */
  readonly stockWriter: string;
  /** orders:read and orders:write of one buyer. */
  readonly buyer: string;
  /** orders:admin: every order. */
  readonly ordersAdmin: string;
}

/**
 * The whole system as an operator runs it at scale: an issuer, N stock and M
 * sales instances on one PostgreSQL database per service and one RabbitMQ
 * vhost, and a gateway in front of all of them; sales reaches stock through
 * the gateway too. Every process is a real one, on loopback, with a fixed
 * port, so it can be killed and started again where the others expect it.
 */
export class Cluster {
  readonly instances: Instance[] = [];
  tokens!: Tokens;
  private readonly suffix = `${process.pid}_${Date.now().toString(36)}`;
  readonly databases = { stock: `drill_stock_${this.suffix}`, sales: `drill_sales_${this.suffix}` };
  readonly vhost = `drill_${this.suffix}`;
  private readonly folder = mkdtempSync(join(tmpdir(), 'drill-'));

  private constructor(private readonly options: ClusterOptions) {}

  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const cluster = new Cluster(options);
    try {
      await cluster.boot();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get gateway(): Instance {
    return this.of('gateway')[0]!;
  }

  of(role: Role): Instance[] {
    return this.instances.filter((instance) => instance.role === role);
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
    const clientsFile = join(this.folder, 'clients.json');
    writeFileSync(clientsFile, JSON.stringify(CLIENTS), { mode: 0o600 });
    const gatewayPort = await freePort();
    const issuer = `http://127.0.0.1:${gatewayPort}/identity`;
    const identity = new Instance('identity', 'identity', await freePort(), {
      ISSUER: issuer,
      IDENTITY_CLIENTS_FILE: clientsFile,
      IDENTITY_KEYS_FILE: join(this.folder, 'keys.json'),
      // The drill's clients take their tokens once: they must outlive the longest drill (the soak).
      ACCESS_TOKEN_TTL_SECONDS: '3600',
      LOG_LEVEL: 'warn',
      SHUTDOWN_DELAY_MS: '0',
    });
    this.instances.push(identity);
    await identity.start();
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
    for (let i = 0; i < (this.options.stock ?? 2); i++) {
      this.instances.push(new Instance('stock', `stock ${String.fromCharCode(97 + i)}`, await freePort(), { ...common, DATABASE_URL: databaseUrl(this.databases.stock), ...this.options.stockEnv }));
    }
    for (let i = 0; i < (this.options.sales ?? 2); i++) {
      this.instances.push(
        new Instance('sales', `sales ${String.fromCharCode(97 + i)}`, await freePort(), {
          ...common,
          DATABASE_URL: databaseUrl(this.databases.sales),
          STOCK_URL: gatewayUrl,
          STOCK_CLIENT_ID: seller.clientId,
          STOCK_CLIENT_SECRET: seller.clientSecret,
        }),
      );
    }
    // Several instances of a service start at once: migrations take an advisory lock.
    await Promise.all([...this.of('stock'), ...this.of('sales')].map((instance) => instance.start()));
    const gateway = new Instance('gateway', 'gateway', gatewayPort, {
      STOCK_URL: this.of('stock').map((i) => i.url).join(','),
      SALES_URL: this.of('sales').map((i) => i.url).join(','),
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
    this.tokens = {
      stockWriter: await tokenFor(`${gatewayUrl}/identity`, 'inventory-sync', 'urn:commerce:stock'),
      buyer: await tokenFor(`${gatewayUrl}/identity`, 'buyer-a', 'urn:commerce:sales'),
      ordersAdmin: await tokenFor(`${gatewayUrl}/identity`, 'orders-admin', 'urn:commerce:sales'),
    };
  }

  /** Resolves once every instance's readiness answers 200 (the gateway's says every service has a ready instance). */
  async waitUntilReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(this.instances.map((instance) => instance.ready()));
      if (states.every(Boolean)) return;
      if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms: ${this.instances.filter((_, i) => !states[i]).map((i) => i.name).join(', ')}`);
      await sleep(200);
    }
  }

  /** Stops every process (the gateway first), then drops the databases and the vhost. */
  async stop(): Promise<void> {
    for (const role of ['gateway', 'sales', 'stock', 'identity'] as const) {
      await Promise.all(this.of(role).map((instance) => instance.stop().then(() => undefined)));
    }
    for (const name of Object.values(this.databases)) await adminQuery(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    await rabbitmqctl('delete_vhost', this.vhost).catch(() => undefined);
    rmSync(this.folder, { recursive: true, force: true });
  }
}
