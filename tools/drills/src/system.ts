import type { Cluster, Instance } from './cluster';
import { call, until } from './load';

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
}

export class Findings {
  readonly kept: string[] = [];
  readonly broken: string[] = [];
  readonly figures: Record<string, string | number> = {};

  /** Records whether `what` held. */
  check(what: string, held: boolean, detail?: unknown): void {
    if (held) this.kept.push(what);
    else this.broken.push(`${what}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`);
  }

  result(drill: string, requests: number, failed: number, convergedMs: number | undefined): DrillResult {
    return { drill, requests, failed, convergedMs, figures: this.figures, kept: this.kept, broken: this.broken };
  }
}

export interface Product {
  id: number;
  quantityInStock: number;
  reservedQuantity: number;
}

export interface Order {
  id: string;
  status: string;
  lines: { quantity: number }[];
}

export async function createProduct(cluster: Cluster, name: string, quantityInStock: number): Promise<number> {
  const created = await call(`${cluster.url}/api/products`, { method: 'POST', token: cluster.tokens.stockWriter, body: { name, price: 9.99, quantityInStock } });
  if (!('status' in created) || created.status !== 201) throw new Error(`could not create ${name}: ${JSON.stringify(created)}`);
  return (created.body as { id: number }).id;
}

export async function product(cluster: Cluster, id: number): Promise<Product> {
  const answer = await call(`${cluster.url}/api/products/${id}`, { token: cluster.tokens.stockWriter });
  if (!('status' in answer) || answer.status !== 200) throw new Error(`product ${id}: ${JSON.stringify(answer)}`);
  return answer.body as Product;
}

/** Every order, through the gateway with the administrator's token, page by page. */
export async function allOrders(cluster: Cluster): Promise<Order[]> {
  const orders: Order[] = [];
  for (let after = ''; ; ) {
    const answer = await call(`${cluster.url}/api/orders?limit=1000${after && `&after=${after}`}`, { token: cluster.tokens.ordersAdmin });
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

/** The sums of a product's ledger and how many movements of each kind it has, from stock's database (the truth, not an API's view of it). */
export async function ledger(cluster: Cluster, productId: number): Promise<{ quantity: number; reserved: number; kinds: Record<string, number> }> {
  const rows = await cluster.query('stock', `select "kind", count(*)::int as "n", coalesce(sum("quantity_delta"), 0)::int as "q", coalesce(sum("reserved_delta"), 0)::int as "r" from "stock_movement" where "product_id" = ${Number(productId)} group by "kind"`);
  const kinds = Object.fromEntries(rows.map((row) => [String(row.kind), Number(row.n)]));
  return { quantity: rows.reduce((sum, row) => sum + Number(row.q), 0), reserved: rows.reduce((sum, row) => sum + Number(row.r), 0), kinds };
}

/** Checks the ledger of `productId` sums to its quantities. */
export async function checkLedger(findings: Findings, cluster: Cluster, productId: number): Promise<void> {
  const [current, sums] = [await product(cluster, productId), await ledger(cluster, productId)];
  findings.check(`the ledger of product ${productId} sums to its stock and its holds`, sums.quantity === current.quantityInStock && sums.reserved === current.reservedQuantity, { sums, current });
}

/** Waits until no order is pending (stock answered every placed event); answers how long it took. */
export async function settled(cluster: Cluster, expected: number, timeoutMs: number, final = false): Promise<{ orders: Order[]; ms: number }> {
  const started = Date.now();
  const orders = await until(final ? 'every order to be final' : 'every order to leave pending', timeoutMs, async () => {
    const all = await allOrders(cluster);
    const open = final ? ['pending', 'reserved', 'paid'] : ['pending'];
    return all.length >= expected && all.every((order) => !open.includes(order.status)) && all;
  });
  return { orders, ms: Date.now() - started };
}

/** A metric's value on one instance: the sum of the series of `name` whose labels include `labels`. */
export async function metric(instance: Instance, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
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
    const [row] = await cluster.query(service, `select (select count(*) from "outbox_message")::int as "outbox", (select count(*) from "outbox_message" where "published_at" is null)::int as "unpublished", (select count(*) from "idempotency_key" where "scope" in ('stock-service', 'sales-service'))::int as "inbox"`);
    sizes[`${service} outbox`] = Number(row!.outbox);
    sizes[`${service} unpublished`] = Number(row!.unpublished);
    sizes[`${service} inbox`] = Number(row!.inbox);
  }
  return sizes;
}
