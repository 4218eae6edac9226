import { call, count, key } from '../load';
import {
  byStatus,
  checkLedger,
  createProduct,
  type DrillResult,
  eventsDelivered,
  histogram,
  ledger,
  product,
  runDrill,
  settled,
  sum,
  whose,
} from '../system';

export interface ConcurrencySize {
  /** Concurrent stock −1 through the gateway on half as much stock. */
  readonly adjustments: number;
  /** Concurrent orders of one unit on a quarter as much stock. */
  readonly orders: number;
  /**
   * Further concurrent orders on plenty of stock: holds enough for both stock instances' sweepers to have work at once.
   */
  readonly holds: number;
}

export const FULL_CONCURRENCY: ConcurrencySize = { adjustments: 1000, orders: 200, holds: 800 };

/**
 * How often each stock instance's expiry sweeper looks for due holds: the shortest the setting allows, so both are busy
 * while the holds expire.
 */
const SWEEP_MS = 100;

/**
 * Two stock and two sales instances behind the gateway, one database each,
 * one vhost. `adjustments` concurrent stock −1 on a stock of half as many:
 * exactly half succeed. `orders` concurrent orders of one unit on a quarter
 * as much stock: exactly that many are reserved. Then `holds` more orders are
 * held, and every hold is brought to its expiry at the same instant: the
 * expiry sweepers of both stock instances race for one set of due rows (each
 * takes a batch of 100 with SKIP LOCKED, and one instance alone needs several
 * batches, longer than the other's sweep interval). Each instance's sweeper
 * must have expired some, no hold twice; each of the four relays must have
 * published, and every service's events must have been published exactly as
 * many times as its outbox has rows and handled once each by the consumer.
 */
export async function concurrencyDrill({
  adjustments,
  orders,
  holds,
}: ConcurrencySize = FULL_CONCURRENCY): Promise<DrillResult> {
  // LOG_LEVEL info on stock: each sweeper logs the holds it expired, which says which instance's sweeper took which.
  const options = {
    stockEnv: { RESERVATION_TTL_SECONDS: '3600', RESERVATION_SWEEP_MS: String(SWEEP_MS), LOG_LEVEL: 'info' },
  };
  return runDrill(
    'Two of each behind the gateway: concurrency, relays and sweepers',
    options,
    async ({ cluster, findings, requests }) => {
      const stockOf = adjustments / 2;
      const hot = await createProduct(cluster, 'Hot lamp', stockOf);
      const [writer, buyer] = [await cluster.token('stockWriter'), await cluster.token('buyer')];
      const answers = await Promise.all(
        Array.from({ length: adjustments }, () =>
          call(`${cluster.url}/api/products/${hot}/stock-adjustments`, {
            method: 'POST',
            token: writer,
            body: { delta: -1 },
          }),
        ),
      );
      const statuses = answers.map((answer) => ('status' in answer ? answer.status : answer.error));
      for (const answer of answers) count(requests, answer, (status) => status === 200 || status === 409);
      const sold = statuses.filter((status) => status === 200).length;
      findings.figures['stock −1 accepted'] = `${sold} of ${adjustments}`;
      findings.check(
        `${adjustments} concurrent stock −1 on ${stockOf}: exactly ${stockOf} succeed, the rest are 409`,
        sold === stockOf && statuses.filter((s) => s === 409).length === adjustments - stockOf,
        histogram(statuses),
      );
      findings.check('the hot product ends at 0', (await product(cluster, hot)).quantityInStock === 0);
      await checkLedger(findings, cluster, hot);

      const available = orders / 4;
      const scarce = await createProduct(cluster, 'Scarce pen', available);
      let accepted = 0;
      const placeOrders = async (productId: number, n: number) => {
        const placed = await Promise.all(
          Array.from({ length: n }, () =>
            call(`${cluster.url}/api/orders`, {
              method: 'POST',
              token: buyer,
              body: { lines: [{ productId, quantity: 1 }] },
              headers: { 'idempotency-key': key() },
            }),
          ),
        );
        for (const answer of placed) if (count(requests, answer, (status) => status === 202)) accepted++;
      };
      await placeOrders(scarce, orders);
      findings.check(`all ${orders} concurrent orders accepted (202)`, accepted === orders, requests.failures);
      const { orders: afterScarce } = await settled(cluster, accepted, 120_000);
      const counts = byStatus(afterScarce);
      findings.figures['orders reserved / rejected'] = `${counts.reserved ?? 0} / ${counts.rejected ?? 0}`;
      findings.check(
        `${orders} concurrent orders on ${available}: exactly ${available} reserved`,
        counts.reserved === available && counts.rejected === orders - available,
        counts,
      );
      findings.check(`stock holds ${available}`, (await product(cluster, scarce)).reservedQuantity === available);

      const plenty = await createProduct(cluster, 'Plenty of cups', holds * 2);
      await placeOrders(plenty, holds);
      const { orders: held } = await settled(cluster, accepted, 120_000);
      const heldCount = byStatus(held).reserved ?? 0;
      findings.check(
        `${holds} more concurrent orders on plenty: all held`,
        heldCount === accepted - (counts.rejected ?? 0),
        byStatus(held),
      );

      // Every hold due at once: both sweepers find the same due rows and must split them.
      const expiries = cluster
        .of('stock')
        .map((instance) => ({ instance, entries: instance.watch('reservations expired') }));
      const due = Date.now();
      await cluster.query('stock', `update "reservation" set "expires_at" = now() where "status" = 'held'`);
      const expired = await settled(cluster, accepted, 120_000, true);
      const byInstance = expiries.map(({ instance, entries }) => ({
        name: instance.name,
        ids: entries.flatMap((entry) => entry.reservations as string[]),
      }));
      const everyId = byInstance.flatMap((sweeper) => sweeper.ids);
      findings.figures['holds expired per stock instance’s sweeper'] = byInstance
        .map((sweeper) => `${sweeper.name} ${sweeper.ids.length}`)
        .join(', ');
      for (const sweeper of byInstance)
        findings.check(
          `the expiry sweeper of ${sweeper.name} expired holds`,
          sweeper.ids.length > 0,
          sweeper.ids.length,
        );
      findings.check(
        `every hold (${heldCount}) expired exactly once between the sweepers`,
        everyId.length === heldCount && new Set(everyId).size === heldCount,
        { logged: everyId.length, distinct: new Set(everyId).size },
      );
      findings.check(
        `every held order ends expired (${heldCount})`,
        byStatus(expired.orders).expired === heldCount,
        byStatus(expired.orders),
      );
      const expiredMovements = sum(
        await Promise.all([scarce, plenty].map(async (id) => (await ledger(cluster, id)).kinds.expired ?? 0)),
      );
      findings.check('one expiry in the ledger per hold', expiredMovements === heldCount, expiredMovements);
      for (const id of [scarce, plenty]) {
        findings.check(`product ${id} holds nothing any more`, (await product(cluster, id)).reservedQuantity === 0);
        await checkLedger(findings, cluster, id);
      }

      // The relays: every instance's published, and no event twice.
      const flows = await eventsDelivered(cluster, 60_000);
      // From every hold due to every order expired and every event delivered.
      const converged = Date.now() - due;
      for (const [service, flow] of Object.entries(flows)) {
        findings.figures[`${service} events published per relay`] = Object.entries(flow.publishedBy)
          .map(([name, n]) => `${name} ${n}`)
          .join(', ');
        for (const [name, n] of Object.entries(flow.publishedBy))
          findings.check(`the outbox relay of ${name} published events`, n > 0, n);
        findings.check(
          `${whose(service)} relays published each of its ${flow.written} events once: confirms ${sum(flow.publishedBy)} = outbox rows = distinct events in the consumer's inbox ${flow.consumed}`,
          sum(flow.publishedBy) === flow.written && flow.consumed === flow.written,
          flow,
        );
        findings.check(
          `each of ${whose(service)} events was handled once by its consumers, none delivered twice`,
          flow.handled === flow.consumed && flow.duplicates === 0,
          flow,
        );
      }
      findings.check('no request failed', requests.failed === 0, requests.failures);
      return converged;
    },
  );
}
