import { Cluster } from '../cluster';
import { call, count, key, tally } from '../load';
import { byStatus, checkLedger, createProduct, type DrillResult, Findings, histogram, metric, product, settled } from '../system';

export interface ConcurrencySize {
  /** Concurrent stock −1 through the gateway on half as much stock. */
  readonly adjustments: number;
  /** Concurrent orders of one unit on a quarter as much stock. */
  readonly orders: number;
}

export const FULL_CONCURRENCY: ConcurrencySize = { adjustments: 1000, orders: 200 };

/**
 * Two stock and two sales instances behind the gateway, one database each,
 * one vhost. `adjustments` concurrent stock −1 on a stock of half as many:
 * exactly half succeed. `orders` concurrent orders of one unit on a quarter
 * as much stock: exactly that many are reserved. Then the holds expire (a
 * short TTL): every expiry published once, whichever instance's sweeper took
 * it, and every relay's confirmations summing to the holds, none twice.
 */
export async function concurrencyDrill({ adjustments, orders }: ConcurrencySize = FULL_CONCURRENCY): Promise<DrillResult> {
  const cluster = await Cluster.start({ stockEnv: { RESERVATION_TTL_SECONDS: '15', RESERVATION_SWEEP_MS: '250' } });
  const findings = new Findings();
  const requests = tally();
  try {
    const stockOf = adjustments / 2;
    const hot = await createProduct(cluster, 'Hot lamp', stockOf);
    const answers = await Promise.all(
      Array.from({ length: adjustments }, () => call(`${cluster.url}/api/products/${hot}/stock-adjustments`, { method: 'POST', token: cluster.tokens.stockWriter, body: { delta: -1 } })),
    );
    const statuses = answers.map((answer) => ('status' in answer ? answer.status : answer.error));
    for (const answer of answers) count(requests, answer, (status) => status === 200 || status === 409);
    const sold = statuses.filter((status) => status === 200).length;
    findings.figures['stock −1 accepted'] = `${sold} of ${adjustments}`;
    findings.check(`${adjustments} concurrent stock −1 on ${stockOf}: exactly ${stockOf} succeed, the rest are 409`, sold === stockOf && statuses.filter((s) => s === 409).length === adjustments - stockOf, histogram(statuses));
    findings.check('the hot product ends at 0', (await product(cluster, hot)).quantityInStock === 0);
    await checkLedger(findings, cluster, hot);

    const available = orders / 4;
    const scarce = await createProduct(cluster, 'Scarce pen', available);
    const placed = await Promise.all(
      Array.from({ length: orders }, () => call(`${cluster.url}/api/orders`, { method: 'POST', token: cluster.tokens.buyer, body: { lines: [{ productId: scarce, quantity: 1 }] }, headers: { 'idempotency-key': key() } })),
    );
    for (const answer of placed) count(requests, answer, (status) => status === 202);
    const started = Date.now();
    const { orders: all } = await settled(cluster, orders, 120_000);
    const counts = byStatus(all);
    findings.figures['orders reserved / rejected'] = `${counts.reserved ?? 0} / ${counts.rejected ?? 0}`;
    findings.check(`${orders} concurrent orders on ${available}: exactly ${available} reserved`, counts.reserved === available && counts.rejected === orders - available, counts);
    findings.check(`stock holds ${available}`, (await product(cluster, scarce)).reservedQuantity === available);
    const stock = cluster.of('stock');
    const confirmations = await Promise.all(stock.map((instance) => metric(instance, 'messaging_events_published_total', { type: 'stock.reservation.confirmed' })));
    findings.figures['confirmations published per stock instance'] = confirmations.join(' + ');
    findings.check(`the stock relays published ${available} confirmations between them, none twice`, confirmations.reduce((a, b) => a + b, 0) === available, confirmations);

    // The holds expire on their own: the sweepers of both instances race for them.
    const expired = await settled(cluster, orders, 120_000, true);
    const expiries = await Promise.all(stock.map((instance) => metric(instance, 'messaging_events_published_total', { type: 'stock.reservation.expired' })));
    findings.figures['expiries published per stock instance'] = expiries.join(' + ');
    findings.check(`every hold expired once: ${available} expiries published in all`, expiries.reduce((a, b) => a + b, 0) === available && byStatus(expired.orders).expired === available, { expiries, counts: byStatus(expired.orders) });
    findings.check('nothing is held any more', (await product(cluster, scarce)).reservedQuantity === 0);
    await checkLedger(findings, cluster, scarce);
    return findings.result('Two of each behind the gateway: concurrency, relays and sweepers', requests.sent, requests.failed, Date.now() - started);
  } finally {
    await cluster.stop();
  }
}
