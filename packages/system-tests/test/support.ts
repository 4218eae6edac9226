import {
  type Backend,
  createScratchVhost,
  eventually,
  freePort,
  type ScratchVhost,
  type ServiceProcess,
  scratchDatabaseFor,
  startServiceProcess,
} from '@platform/test-kit';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const PACKAGES = join(import.meta.dirname, '..', '..');
export const MAINS = {
  stock: join(PACKAGES, 'stock', 'service', 'src', 'main.ts'),
  sales: join(PACKAGES, 'sales', 'service', 'src', 'main.ts'),
  identity: join(PACKAGES, 'identity', 'src', 'main.ts'),
  payments: join(PACKAGES, 'offline-payments', 'src', 'main.ts'),
} as const;

/** The offline payment provider's secret key in these tests (Stripe's test-key form). */
export const PAYMENTS_KEY = 'sk_test_system_tests';

export interface RunningProcess {
  readonly process: ServiceProcess;
  readonly url: string;
  readonly port: number;
}

/** One of the services in a process of its own, once it listens. */
export async function launch(service: keyof typeof MAINS, env: Record<string, string>): Promise<RunningProcess> {
  const process = startServiceProcess(MAINS[service], { SHUTDOWN_DELAY_MS: '0', ...env });
  try {
    const port = await process.port();
    return { process, port, url: `http://127.0.0.1:${port}` };
  } catch (error) {
    await process.stop('SIGKILL');
    throw error;
  }
}

/** A fresh database for a service, and how to remove it. */
export const scratchDatabase = (backend: Exclude<Backend, 'memory'>, context: Mocha.Context, name: string) =>
  scratchDatabaseFor(backend, context, name);

export async function json<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(url, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

export interface Order {
  id: string;
  status: string;
  version?: number;
  updatedAt: string;
  lines: { productId: number; quantity: number; allocations: { locationId: number; quantity: number }[] }[];
  failureReason?: string;
}

export interface Product {
  id: number;
  quantityInStock: number;
  reservedQuantity: number;
  committedQuantity: number;
  availableQuantity: number;
}

/** Every order sales has, oldest first, through its keyset pages. */
export async function allOrders(salesUrl: string): Promise<Order[]> {
  const orders: Order[] = [];
  for (let after: string | undefined; ;) {
    const { status, body, headers } = await json<Order[]>(
      'GET',
      `${salesUrl}/api/orders?limit=1000${after ? `&after=${after}` : ''}`,
    );
    if (status !== 200) throw new Error(`listing orders answered ${status}`);
    orders.push(...body);
    if (!headers.get('link')) return orders;
    after = body[body.length - 1]!.id;
  }
}

/** The orders by status. */
export function countByStatus(orders: readonly Order[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const order of orders) counts[order.status] = (counts[order.status] ?? 0) + 1;
  return counts;
}

/** Asserts-free: the sums of a product's ledger, to compare with its quantities. */
export async function ledgerSums(
  stockUrl: string,
  productId: number,
): Promise<{ quantity: number; reserved: number; committed: number }> {
  const sums = { quantity: 0, reserved: 0, committed: 0 };
  for (let after = 0; ;) {
    const { body, headers } = await json<
      { id: number; quantityDelta: number; reservedDelta: number; committedDelta: number }[]
    >('GET', `${stockUrl}/api/products/${productId}/stock-movements?limit=1000&after=${after}`);
    for (const movement of body) {
      sums.quantity += movement.quantityDelta;
      sums.reserved += movement.reservedDelta;
      sums.committed += movement.committedDelta;
    }
    if (!headers.get('link')) return sums;
    after = body[body.length - 1]!.id;
  }
}

export interface OrderSystem {
  readonly vhost: ScratchVhost;
  /** Replaced when a test starts stock again (on the same port, as sales knows it). */
  stock: RunningProcess;
  readonly sales: RunningProcess;
  /** The offline payment provider sales is paid through (Stripe's API). */
  readonly payments: RunningProcess;
  /** Stock's environment, to start it again. */
  readonly stockEnv: Record<string, string>;
  /** Stops the processes and removes their databases and vhost. */
  stop(): Promise<void>;
}

/**
 * Stock and sales as processes, each on a fresh database of `backend`, both on a fresh RabbitMQ vhost; sales reads
 * stock directly.
 */
export async function startOrderSystem(
  backend: Exclude<Backend, 'memory'>,
  context: Mocha.Context,
  env: { stock?: Record<string, string>; sales?: Record<string, string> } = {},
): Promise<OrderSystem> {
  const vhost = await createScratchVhost(context);
  const cleanUps: (() => Promise<void>)[] = [vhost.drop];
  const processes: { stock?: RunningProcess; sales?: RunningProcess; payments?: RunningProcess } = {};
  const stop = async () => {
    await Promise.all([processes.stock?.process.stop(), processes.sales?.process.stop()]);
    await processes.payments?.process.stop();
    for (const cleanUp of cleanUps.reverse()) await cleanUp();
  };
  try {
    const stockDb = await scratchDatabase(backend, context, 'stock');
    cleanUps.push(stockDb.cleanUp);
    const salesDb = await scratchDatabase(backend, context, 'sales');
    cleanUps.push(salesDb.cleanUp);
    const common = { AMQP_URL: vhost.url, OUTBOX_POLL_MS: '50', DB_CREATE_DATABASE: 'true' };
    const stockEnv = { ...common, DATABASE_URL: stockDb.url, ...env.stock };
    processes.stock = await launch('stock', stockEnv);
    // Sales is paid by the offline provider's webhook: its endpoint is registered before sales listens on its port.
    processes.payments = await launch('payments', { PAYMENTS_API_KEY: PAYMENTS_KEY });
    const salesPort = await freePort();
    const webhookSecret = await registerWebhook(processes.payments.url, `http://127.0.0.1:${salesPort}`);
    processes.sales = await launch('sales', {
      ...common,
      PORT: String(salesPort),
      DATABASE_URL: salesDb.url,
      STOCK_URL: processes.stock.url,
      PAYMENTS_API_KEY: PAYMENTS_KEY,
      PAYMENTS_URL: processes.payments.url,
      PAYMENTS_WEBHOOK_SECRET: webhookSecret,
      PAYMENTS_POLL_MS: '50',
      ...env.sales,
    });
    return {
      vhost,
      stockEnv,
      sales: processes.sales,
      payments: processes.payments,
      get stock() {
        return processes.stock!;
      },
      set stock(running) {
        processes.stock = running;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Registers sales' `/api/payment-events` at `salesUrl` with the provider: answers the endpoint's signing secret. */
async function registerWebhook(providerUrl: string, salesUrl: string): Promise<string> {
  const response = await fetch(`${providerUrl}/v1/webhook_endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PAYMENTS_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ url: `${salesUrl}/api/payment-events`, 'enabled_events[]': '*' }),
  });
  const body = (await response.json()) as { secret?: string };
  if (!response.ok || !body.secret)
    throw new Error(`registering the webhook: ${response.status} ${JSON.stringify(body)}`);
  return body.secret;
}

/**
 * Pays an order as its buyer does: once sales has its authorisation, confirms it at the provider with Stripe's test
 * card; the provider's webhook then makes the order paid.
 */
export async function payOrder(system: OrderSystem, orderId: string): Promise<void> {
  const intentId = await eventually(`order ${orderId}'s authorisation`, 30_000, async () => {
    const { body } = await json<Order & { payment?: { intentId: string } }>(
      'GET',
      `${system.sales.url}/api/orders/${orderId}`,
    );
    return body.payment?.intentId;
  });
  const response = await fetch(`${system.payments.url}/v1/payment_intents/${intentId}/confirm`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PAYMENTS_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ payment_method: 'pm_card_visa' }),
  });
  if (!response.ok) throw new Error(`confirming ${intentId}: ${response.status} ${await response.text()}`);
}

/**
 * The last shell block of a page's section (the page a path from the workspace's root) that runs curl commands (not
 * the one that starts the services, which may register a webhook with curl too), as a test runs it.
 */
export function docShellBlock(page: string, section: string): string {
  const text = readFileSync(join(PACKAGES, '..', page), 'utf8')
    .split(`\n## ${section}\n`)[1]!
    .split('\n## ')[0]!;
  const block = [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .findLast((candidate) => candidate.includes('curl'));
  if (!block) throw new Error(`${page}, section "${section}", has no shell block with curl`);
  return block;
}

/** What the documented walkthroughs' curls print: an order's status, a product's stock, or a problem's status. */
export interface CurlAnswer {
  readonly status?: string | number;
  readonly quantityInStock?: number;
  readonly reservedQuantity?: number;
  readonly committedQuantity?: number;
  readonly damagedQuantity?: number;
  readonly availableQuantity?: number;
  /** A shipment's or a return's lines. */
  readonly lines?: readonly { readonly locationId: number; readonly quantity: number; readonly disposition?: string }[];
}

/** What a shell block printed: one JSON answer per curl that prints one, of the shape the caller reads. */
export function jsonAnswers<Answer = Record<string, unknown>>(stdout: string): Answer[] {
  return stdout
    .split(/(?<=\})(?=\{)|\n/)
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Answer);
}

/** The offline provider's key that start:system gives it, which the README's walkthrough names. */
const START_SYSTEM_PAYMENTS_KEY = 'sk_test_start_system_offline';

export const START_SYSTEM = join(PACKAGES, '..', 'tools', 'system', 'src', 'start-system.ts');

/** `pnpm start:system` as a test runs it, once it said the system is up. */
export interface WholeSystem {
  readonly process: ServiceProcess;
  /** Each port it was given, free when it started. */
  readonly ports: Readonly<Record<string, number>>;
  /** The gateway's URL: everything goes through it. */
  readonly gateway: string;
}

/**
 * start:system on free ports, in a process group of its own (as a terminal runs it), with `settings` on top, waited
 * for until it says the system is up; a start that fails rejects with what it wrote to stderr.
 */
export async function startWholeSystem(settings: Record<string, string>): Promise<WholeSystem> {
  const ports = {
    GATEWAY_PORT: await freePort(),
    STOCK_PORT: await freePort(),
    SALES_PORT: await freePort(),
    IDENTITY_PORT: await freePort(),
    PAYMENTS_PORT: await freePort(),
    GATEWAY_METRICS_PORT: await freePort(),
  };
  const portSettings = Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)]));
  const system = startServiceProcess(START_SYSTEM, { ...portSettings, ...settings }, { detached: true });
  try {
    await eventually(
      'the system to be up',
      90_000,
      async () =>
        system.stdout.some((line) => line.startsWith('The system is up')) ||
        (system.child.exitCode !== null ? Promise.reject(new Error(system.stderr.join('\n'))) : false),
    );
  } catch (error) {
    await system.stop('SIGTERM');
    throw error;
  }
  return { process: system, ports, gateway: `http://localhost:${ports.GATEWAY_PORT}` };
}

/**
 * The README's walkthrough of the whole system, run in bash against `gateway` with the clients file in `data` (or
 * the one `clientsFile` names) and the offline payment provider at `payments`, whose key is `paymentsKey`
 * (start:system's unless given); `until` cuts it before the first line that contains it.
 */
export async function runReadmeWalkthrough(
  gateway: string,
  data: string,
  {
    clientsFile = join(data, 'identity-clients.json'),
    payments = 'http://localhost:8084',
    paymentsKey = START_SYSTEM_PAYMENTS_KEY,
    until = '',
  } = {},
): Promise<string> {
  const block = docShellBlock('README.md', 'The whole system in one command');
  const lines = block.split('\n');
  const cut = until ? lines.findIndex((line) => line.includes(until)) : -1;
  const script = (cut === -1 ? block : lines.slice(0, cut).join('\n'))
    .replaceAll('http://localhost:8000', gateway)
    .replaceAll('http://localhost:8084', payments)
    .replaceAll(`-u ${START_SYSTEM_PAYMENTS_KEY}:`, `-u ${paymentsKey}:`)
    .replaceAll('data/identity-clients.json', clientsFile);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { timeout: 60_000 });
  return stdout;
}
