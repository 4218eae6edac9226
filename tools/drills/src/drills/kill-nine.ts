import { Cluster, type Instance, sleep } from '../cluster';
import { call, count, key, steady, tally, until } from '../load';
import { allOrders, byStatus, checkLedger, createProduct, type DrillResult, Findings, ledger, product, settled } from '../system';

export interface KillSize {
  readonly workers: number;
  /** How long each process stays dead. */
  readonly downMs: number;
  /** Load between two kills. */
  readonly betweenMs: number;
}

export const FULL_KILL: KillSize = { workers: 4, downMs: 1_500, betweenMs: 3_000 };

/**
 * Orders flow through the gateway while each process in turn is killed with
 * SIGKILL and started again: a stock instance, a sales instance, the issuer,
 * the gateway, the other stock instance (its relay mid-batch). Requests
 * during a death may fail; what was acknowledged may not be lost. Afterwards
 * every accepted order settles, every reserved one is paid, and every order
 * reaches a final state with exactly one effect on stock.
 */
export async function killNineDrill({ workers, downMs, betweenMs }: KillSize = FULL_KILL): Promise<DrillResult> {
  const cluster = await Cluster.start();
  const findings = new Findings();
  const requests = tally();
  try {
    const initial = 100_000;
    const lamp = await createProduct(cluster, 'Lamp', initial);
    const accepted: string[] = [];
    const load = steady(workers, 20, async () => {
      const answer = await call(`${cluster.url}/api/orders`, { method: 'POST', token: cluster.tokens.buyer, body: { lines: [{ productId: lamp, quantity: 1 }] }, headers: { 'idempotency-key': key() }, timeoutMs: 10_000 });
      if (count(requests, answer, (status) => status === 202) && 'status' in answer) accepted.push((answer.body as { id: string }).id);
    });
    const [stockA, stockB] = cluster.of('stock') as [Instance, Instance];
    const victims = [stockA, cluster.of('sales')[0]!, cluster.of('identity')[0]!, cluster.gateway, stockB];
    const killed: string[] = [];
    await sleep(betweenMs);
    for (const victim of victims) {
      await victim.stop('SIGKILL');
      await sleep(downMs);
      await victim.start();
      killed.push(victim.name);
      await sleep(betweenMs);
    }
    await load.stop();
    findings.figures.killed = killed.join(', ');
    findings.figures['orders accepted / refused'] = `${accepted.length} / ${requests.failed}`;
    const started = Date.now();
    await cluster.waitUntilReady();
    const { orders } = await settled(cluster, accepted.length, 120_000);
    const known = new Set(orders.map((order) => order.id));
    findings.check('every accepted order exists and left pending', accepted.every((id) => known.has(id)), accepted.filter((id) => !known.has(id)).length);
    for (const order of orders.filter((o) => o.status === 'reserved')) {
      await until(`order ${order.id} paid`, 30_000, async () => {
        const answer = await call(`${cluster.url}/api/orders/${order.id}/payment`, { method: 'POST', token: cluster.tokens.buyer });
        return 'status' in answer && answer.status === 200;
      });
    }
    const final = await settled(cluster, accepted.length, 120_000, true);
    const counts = byStatus(final.orders);
    findings.figures['final states'] = JSON.stringify(counts);
    const completed = final.orders.filter((order) => order.status === 'completed').reduce((sum, order) => sum + order.lines.reduce((s, line) => s + line.quantity, 0), 0);
    const lampNow = await product(cluster, lamp);
    findings.check('stock went down by exactly the completed orders: none had two effects', lampNow.quantityInStock === initial - completed && lampNow.reservedQuantity === 0, { lampNow, completed });
    const sums = await ledger(cluster, lamp);
    findings.check('one commit in the ledger per completed order', (sums.kinds.committed ?? 0) === (counts.completed ?? 0), sums.kinds);
    await checkLedger(findings, cluster, lamp);
    findings.check('every order is in a final state', (await allOrders(cluster)).every((order) => ['completed', 'rejected', 'cancelled', 'expired', 'unfulfilled'].includes(order.status)));
    return findings.result('kill -9 of each process in turn', requests.sent, requests.failed, Date.now() - started);
  } finally {
    await cluster.stop();
  }
}
