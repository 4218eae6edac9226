import { eventually } from '@platform/test-kit';
import { Cluster, type ClusterOptions, type Instance } from './cluster';
import { call, DRILL_POLL_MS, steady, type Tally, tally } from './load';

/** What a drill found: its figures, and each check it made, kept or broken. */
export interface DrillResult {
  readonly drill: string;
  readonly requests: number;
  readonly failed: number;
  /** From the fault (or the end of the load) to the system settled, in ms. */
  readonly convergedMs: number | undefined;
  /** Other figures worth a column of their own in the report. */
  readonly figures: Record<string, string | number>;
  readonly kept: string[];
  readonly broken: string[];
  /** When the drill stopped on an error: each process's last log lines, for the report's folder. */
  readonly logs?: Record<string, string[]>;
}

export class Findings {
  readonly kept: string[] = [];
  readonly broken: string[] = [];
  readonly figures: Record<string, string | number> = {};

  /** Records whether `what` held. */
  check(what: string, held: boolean, detail?: unknown): void {
    if (held) this.kept.push(what);
    else
      this.broken.push(
        `${what}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`,
      );
  }

  result(drill: string, requests: number, failed: number, convergedMs: number | undefined): DrillResult {
    return { drill, requests, failed, convergedMs, figures: this.figures, kept: this.kept, broken: this.broken };
  }
}

export interface DrillContext {
  readonly cluster: Cluster;
  readonly findings: Findings;
  /** Every request the drill's clients sent, and how each ended. */
  readonly requests: Tally;
  /** A steady load (load.ts's `steady`) that is stopped with the drill however it ends. */
  readonly steady: typeof steady;
}

/**
 * Starts a cluster, runs `body`, and stops the cluster whatever happened. A
 * body that throws (a wait that timed out, a process that would not start)
 * ends the drill as a broken check, keeping what it had found so far and
 * each process's last log lines. `body` answers the drill's time to converge.
 */
export async function runDrill(
  title: string,
  options: ClusterOptions,
  body: (context: DrillContext) => Promise<number | undefined>,
): Promise<DrillResult> {
  const findings = new Findings();
  const requests = tally();
  let cluster: Cluster | undefined;
  let convergedMs: number | undefined;
  let logs: Record<string, string[]> | undefined;
  const loads: ReturnType<typeof steady>[] = [];
  const tracked: typeof steady = (...args) => {
    const load = steady(...args);
    loads.push(load);
    return load;
  };
  try {
    cluster = await Cluster.start(options);
    convergedMs = await body({ cluster, findings, requests, steady: tracked });
  } catch (error) {
    findings.check('the drill ran to its end', false, String((error as Error).message ?? error).split('\n')[0]);
  } finally {
    if (cluster && findings.broken.length > 0) logs = logsOf(cluster);
    // A load still running (the drill stopped on an error) would go on calling dead ports.
    await Promise.allSettled(loads.map((load) => load.stop()));
    await cluster?.stop();
  }
  return { ...findings.result(title, requests.sent, requests.failed, convergedMs), ...(logs && { logs }) };
}

/** Each process's warnings and errors, then its last lines: what a broken check's report keeps. */
function logsOf(cluster: Cluster): Record<string, string[]> {
  return Object.fromEntries(
    cluster.instances.map((instance) => [
      instance.name,
      ['-- warnings and errors', ...instance.problems, '-- last lines', ...instance.tail],
    ]),
  );
}

export interface Product {
  id: number;
  quantityInStock: number;
  reservedQuantity: number;
  committedQuantity: number;
}

export interface Order {
  id: string;
  status: string;
  lines: { quantity: number }[];
  /** The order's PaymentIntent at the provider, once stock holds it and sales has created one. */
  payment?: { intentId: string; status: string };
}

export async function createProduct(cluster: Cluster, name: string, quantityInStock: number): Promise<number> {
  const created = await call(`${cluster.url}/api/products`, {
    method: 'POST',
    token: await cluster.token('stockWriter'),
    body: { name, price: 9.99, quantityInStock },
  });
  if (!('status' in created) || created.status !== 201)
    throw new Error(`could not create ${name}: ${JSON.stringify(created)}`);
  return (created.body as { id: number }).id;
}

export async function product(cluster: Cluster, id: number): Promise<Product> {
  const answer = await call(`${cluster.url}/api/products/${id}`, { token: await cluster.token('stockWriter') });
  if (!('status' in answer) || answer.status !== 200) throw new Error(`product ${id}: ${JSON.stringify(answer)}`);
  return answer.body as Product;
}

/** Every order, through the gateway with the administrator's token, page by page. */
export async function allOrders(cluster: Cluster): Promise<Order[]> {
  const orders: Order[] = [];
  for (let after = ''; ;) {
    const answer = await call(`${cluster.url}/api/orders?limit=1000${after && `&after=${after}`}`, {
      token: await cluster.token('ordersAdmin'),
    });
    if (!('status' in answer) || answer.status !== 200) throw new Error(`listing orders: ${JSON.stringify(answer)}`);
    const page = answer.body as Order[];
    orders.push(...page);
    if (page.length < 1000) return orders;
    after = page[page.length - 1]!.id;
  }
}

/** How many times each value occurs. */
export function histogram(values: readonly (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

export const byStatus = (orders: readonly Order[]) => histogram(orders.map((order) => order.status));

/**
 * The sums of a product's ledger and how many movements of each kind it has, from stock's database (the truth, not an
 * API's view of it).
 */
export async function ledger(
  cluster: Cluster,
  productId: number,
): Promise<{ quantity: number; reserved: number; committed: number; kinds: Record<string, number> }> {
  const rows = await cluster.query(
    'stock',
    `select "kind", count(*)::int as "n", coalesce(sum("quantity_delta"), 0)::int as "q", coalesce(sum("reserved_delta"), 0)::int as "r", coalesce(sum("committed_delta"), 0)::int as "c" from "stock_movement" where "product_id" = ${Number(productId)} group by "kind"`,
  );
  const kinds = Object.fromEntries(rows.map((row) => [String(row.kind), Number(row.n)]));
  return {
    quantity: rows.reduce((sum, row) => sum + Number(row.q), 0),
    reserved: rows.reduce((sum, row) => sum + Number(row.r), 0),
    committed: rows.reduce((sum, row) => sum + Number(row.c), 0),
    kinds,
  };
}

/** Checks the ledger of `productId` sums to its quantities. */
export async function checkLedger(findings: Findings, cluster: Cluster, productId: number): Promise<void> {
  const [current, sums] = [await product(cluster, productId), await ledger(cluster, productId)];
  findings.check(
    `the ledger of product ${productId} sums to its stock, its holds and its committed units`,
    sums.quantity === current.quantityInStock &&
      sums.reserved === current.reservedQuantity &&
      sums.committed === current.committedQuantity,
    { sums, current },
  );
}

/** Waits until no order is pending (stock answered every placed event); answers how long it took. */
export async function settled(
  cluster: Cluster,
  expected: number,
  timeoutMs: number,
  final = false,
): Promise<{ orders: Order[]; ms: number }> {
  const started = Date.now();
  let last: Order[] = [];
  const orders = await eventually(
    final ? 'every order to be final' : 'every order to leave pending',
    timeoutMs,
    async () => {
      const all = (last = await allOrders(cluster));
      // A paid order rests until it ships (the drills ship none): stock's commit of it is checked through the events.
      const open = final ? ['pending', 'reserved'] : ['pending'];
      return all.length >= expected && all.every((order) => !open.includes(order.status)) && all;
    },
    DRILL_POLL_MS,
  ).catch((error: Error) => {
    throw new Error(`${error.message} (${expected} expected, ${JSON.stringify(byStatus(last))} seen)`);
  });
  return { orders, ms: Date.now() - started };
}

/** A metric's value on one instance: the sum of the series of `name` whose labels include `labels`. */
export async function metric(instance: Instance, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${instance.metricsUrl}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) continue;
    sum += Number(line.split(' ').pop());
  }
  return sum;
}

/** Rows of the outbox not yet published, and rows kept in the inbox (idempotency records), per service database. */
export async function tableSizes(cluster: Cluster): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const service of ['stock', 'sales'] as const) {
    const [row] = await cluster.query(
      service,
      `select (select count(*) from "outbox_message")::int as "outbox", (select count(*) from "outbox_message" where "published_at" is null)::int as "unpublished", (select count(*) from "idempotency_key" where "scope" in ('stock-service', 'sales-service'))::int as "inbox"`,
    );
    sizes[`${service} outbox`] = Number(row!.outbox);
    sizes[`${service} unpublished`] = Number(row!.unpublished);
    sizes[`${service} inbox`] = Number(row!.inbox);
  }
  return sizes;
}

/** The consumer (its queue, the scope of its inbox entries) of each service's events. */
const CONSUMER_OF = {
  stock: { service: 'sales', queue: 'sales-service' },
  sales: { service: 'stock', queue: 'stock-service' },
} as const;

/** What became of the events one service published, from both databases and every instance's metrics. */
export interface EventFlow {
  /** Rows its outbox holds (every event it wrote, unless retention swept some). */
  readonly written: number;
  readonly unpublished: number;
  /**
   * Publishes the broker confirmed, by instance of the publishing service (its relays' counters since they last
   * started).
   */
  readonly publishedBy: Record<string, number>;
  /** Distinct events the consuming service's inbox recorded. */
  readonly consumed: number;
  /**
   * Deliveries the consuming instances handled (their effect ran), and those their inbox dropped as already handled.
   */
  readonly handled: number;
  readonly duplicates: number;
}

/** "stock's", "sales'". */
export const whose = (service: string) => (service.endsWith('s') ? `${service}'` : `${service}'s`);

export const sum = (values: Record<string, number> | readonly number[]) =>
  Object.values(values).reduce((a, b) => a + b, 0);

/** The event flow out of each service: its outbox, its relays' publishes, the other service's inbox and consumers. */
export async function eventFlows(cluster: Cluster): Promise<Record<'stock' | 'sales', EventFlow>> {
  const flows = {} as Record<'stock' | 'sales', EventFlow>;
  for (const publisher of ['stock', 'sales'] as const) {
    const consumer = CONSUMER_OF[publisher];
    const [outbox] = await cluster.query(
      publisher,
      `select count(*)::int as "written", count(*) filter (where "published_at" is null)::int as "unpublished" from "outbox_message"`,
    );
    const [inbox] = await cluster.query(
      consumer.service,
      `select count(*)::int as "consumed" from "idempotency_key" where "scope" = '${consumer.queue}'`,
    );
    const publishedBy = Object.fromEntries(
      await Promise.all(
        cluster
          .of(publisher)
          .map(
            async (instance) => [instance.name, await metric(instance, 'messaging_events_published_total')] as const,
          ),
      ),
    );
    const consumers = cluster.of(consumer.service);
    const all = await Promise.all(consumers.map((instance) => metric(instance, 'messaging_events_consumed_total')));
    const duplicates = await Promise.all(
      consumers.map((instance) => metric(instance, 'messaging_events_consumed_total', { outcome: 'duplicate' })),
    );
    flows[publisher] = {
      written: Number(outbox!.written),
      unpublished: Number(outbox!.unpublished),
      publishedBy,
      consumed: Number(inbox!.consumed),
      handled: sum(all) - sum(duplicates),
      duplicates: sum(duplicates),
    };
  }
  return flows;
}

/**
 * Waits until every event of both services is published and recorded by its consumer's inbox; answers the flows then.
 */
export function eventsDelivered(cluster: Cluster, timeoutMs: number): Promise<Record<'stock' | 'sales', EventFlow>> {
  return eventually(
    'every event published and in its consumer’s inbox',
    timeoutMs,
    async () => {
      const flows = await eventFlows(cluster);
      return Object.values(flows).every((flow) => flow.unpublished === 0 && flow.consumed === flow.written) && flows;
    },
    DRILL_POLL_MS,
  );
}
