import { eventually } from '@platform/test-kit';
import { type Cluster, type Instance, sleep } from '../cluster';
import { call, count, DRILL_POLL_MS, inPool, key } from '../load';
import {
  allOrders,
  byStatus,
  checkLedger,
  createProduct,
  type DrillResult,
  eventsDelivered,
  type Findings,
  ledger,
  type Order,
  product,
  runDrill,
  settled,
} from '../system';

export interface KillSize {
  readonly workers: number;
  /** How long each process stays dead. */
  readonly downMs: number;
  /** Load between two kills. */
  readonly betweenMs: number;
}

export const FULL_KILL: KillSize = { workers: 4, downMs: 1_500, betweenMs: 3_000 };

/**
 * The shortest life the issuer gives a token: the drill's clients and sales renew theirs every few seconds, so the
 * issuer's death is felt.
 */
const TOKEN_TTL_SECONDS = 10;
/** The drill's clients renew a token once it is this old. */
const TOKEN_MAX_AGE_MS = 3_000;
/** Where the drill's orders end: paid (committed, waiting to ship: the drill ships none) or never paid for. */
const FINAL = ['paid', 'rejected', 'cancelled', 'expired', 'unfulfilled'];

interface Lease {
  readonly id: string;
  readonly lockedUntil: number;
}

/**
 * Rows of stock's outbox that one relay has held leased and unpublished for
 * `heldMs` at least. A relay that can publish marks its batch within
 * milliseconds; one whose broker link is frozen waits for confirms that do
 * not come, its rows leased: these are its rows.
 */
function stuckLeases(cluster: Cluster, heldMs: number, timeoutMs: number): Promise<Lease[]> {
  const seen = new Map<string, { lockedUntil: number; since: number }>();
  return eventually(
    `a relay holding leased outbox rows for ${heldMs} ms`,
    timeoutMs,
    async () => {
      const now = Date.now();
      const rows = await cluster.query(
        'stock',
        `select "id", "locked_until" from "outbox_message" where "published_at" is null and "locked_until" > ${now}`,
      );
      const current = new Map(rows.map((row) => [String(row.id), Number(row.locked_until)]));
      for (const [id, lease] of seen) if (current.get(id) !== lease.lockedUntil) seen.delete(id);
      for (const [id, lockedUntil] of current) if (!seen.has(id)) seen.set(id, { lockedUntil, since: now });
      const stuck = [...seen]
        .filter(([, lease]) => now - lease.since >= heldMs)
        .map(([id, lease]) => ({ id, lockedUntil: lease.lockedUntil }));
      return stuck.length > 0 && stuck;
    },
    DRILL_POLL_MS,
  );
}

/**
 * Orders flow through the gateway while each process in turn is killed with
 * SIGKILL and started again: a stock instance, a sales instance, the issuer,
 * the gateway, and the other stock instance with its outbox relay mid-batch.
 *
 * The issuer's tokens live 10 s and every client renews its own every few
 * seconds (the drill's through the gateway, sales' for stock), so the
 * issuer's death is felt: the drill checks that no token can be had while it
 * is dead, and that one issued after its restart is accepted.
 *
 * The relay mid-batch is arranged, not left to chance: stock a reaches
 * RabbitMQ through a TCP proxy that the drill freezes, so its relay's next
 * batch waits for confirms with its rows leased; the drill sees those rows
 * stay leased in the outbox table, kills stock a, cuts its connection, and
 * starts it again. The rows must be published only once their lease has run
 * out (another relay took them over), and every event must reach its
 * consumer's inbox.
 *
 * Requests during a death may fail; what was acknowledged may not be lost.
 * Afterwards every accepted order settles, every reserved one is paid, and
 * every order reaches a final state with exactly one effect on stock.
 */
export async function killNineDrill({ workers, downMs, betweenMs }: KillSize = FULL_KILL): Promise<DrillResult> {
  const options = { accessTokenTtlSeconds: TOKEN_TTL_SECONDS, proxiedBroker: ['stock a'] };
  return runDrill('kill -9 of each process in turn', options, async ({ cluster, findings, requests, steady }) => {
    const initial = 100_000;
    const lamp = await createProduct(cluster, 'Lamp', initial);
    const accepted: string[] = [];
    const placeOrder = async (token: string) => {
      const answer = await call(`${cluster.url}/api/orders`, {
        method: 'POST',
        token,
        body: { lines: [{ productId: lamp, quantity: 1 }] },
        headers: { 'idempotency-key': key() },
        timeoutMs: 10_000,
      });
      if (count(requests, answer, (status) => status === 202) && 'status' in answer)
        accepted.push((answer.body as { id: string }).id);
      return answer;
    };
    const load = steady(workers, 20, async () => {
      const token = await cluster.token('buyer', TOKEN_MAX_AGE_MS).catch(() => undefined);
      if (token) await placeOrder(token);
      else {
        // A client that cannot renew its token cannot call: a failed request, and a pause before it tries again.
        count(requests, { error: 'no token' });
        await sleep(100);
      }
    });
    const [stockA, stockB] = cluster.of('stock') as [Instance, Instance];
    const identity = cluster.of('identity')[0]!;
    const killed: string[] = [];
    const restart = async (victim: Instance, whileDead?: () => Promise<void>) => {
      await victim.stop('SIGKILL');
      await whileDead?.();
      await sleep(downMs);
      await victim.start();
      killed.push(victim.name);
      await sleep(betweenMs);
    };

    await sleep(betweenMs);
    await restart(stockB);
    await restart(cluster.of('sales')[0]!);
    await restart(identity, async () => {
      const refused = await cluster.askIssuer('buyer').then(
        () => undefined,
        (error: Error) => error.message,
      );
      findings.check('with the issuer dead, no token could be had: its death was felt', refused !== undefined);
    });
    const renewed = await eventually(
      'a token from the restarted issuer',
      30_000,
      () => cluster.askIssuer('buyer').catch(() => undefined),
      DRILL_POLL_MS,
    );
    const withRenewed = await placeOrder(renewed);
    findings.check(
      'after its restart the issuer gave a new token, and an order placed with it was accepted',
      'status' in withRenewed && withRenewed.status === 202,
      withRenewed,
    );
    await restart(cluster.gateway);
    const leases = await killRelayMidBatch(cluster, stockA, findings, downMs);
    killed.push(`${stockA.name} (its relay mid-batch)`);
    await sleep(betweenMs);
    await load.stop();

    findings.figures.killed = killed.join(', ');
    findings.figures['orders accepted / requests failed'] = `${accepted.length} / ${requests.failed}`;
    findings.figures['failures by cause'] = JSON.stringify(requests.failures);
    const started = Date.now();
    await cluster.waitUntilReady();
    const { orders } = await settled(cluster, accepted.length, 120_000);
    const known = new Set(orders.map((order) => order.id));
    findings.check(
      'every accepted order exists and left pending',
      accepted.every((id) => known.has(id)),
      accepted.filter((id) => !known.has(id)).length,
    );
    // The buyer of each held order pays at the provider once sales has created its intent; the provider's webhook
    // then makes it paid.
    await inPool(
      orders.filter((o) => o.status === 'reserved'),
      8,
      async (order) => {
        const intentId = await eventually(
          `order ${order.id}'s payment intent`,
          30_000,
          async () => {
            const answer = await call(`${cluster.url}/api/orders/${order.id}`, {
              token: await cluster.token('ordersAdmin'),
            });
            return 'status' in answer && answer.status === 200 && (answer.body as Order).payment?.intentId;
          },
          DRILL_POLL_MS,
        );
        await eventually(
          `order ${order.id}'s payment confirmed at the provider`,
          30_000,
          async () => {
            const answer = await cluster.confirmPayment(intentId);
            return 'status' in answer && answer.status === 200;
          },
          DRILL_POLL_MS,
        );
      },
    );
    await settled(cluster, accepted.length, 120_000, true);
    // The killed relay's rows come back only when their lease ends (30 s): allow for it.
    const flows = await eventsDelivered(cluster, 90_000);
    const converged = Date.now() - started;
    // Read once every event is in: a paid order whose hold had lapsed is unfulfilled only once stock said so.
    const finalOrders = await allOrders(cluster);
    const counts = byStatus(finalOrders);
    findings.figures['final states'] = JSON.stringify(counts);
    for (const [service, flow] of Object.entries(flows)) {
      findings.check(
        `every event ${service} wrote (${flow.written}) was published and is in its consumer's inbox: nothing acknowledged lost`,
        flow.unpublished === 0 && flow.consumed === flow.written,
        flow,
      );
    }
    const rows =
      leases.length === 0
        ? []
        : await cluster.query(
            'stock',
            `select "id", "published_at" from "outbox_message" where "id" in (${leases.map((lease) => `'${lease.id}'`).join(', ')})`,
          );
    const publishedAt = new Map(
      rows.map((row) => [String(row.id), row.published_at === null ? undefined : Number(row.published_at)]),
    );
    const early = leases.filter((lease) => !((publishedAt.get(lease.id) ?? -1) >= lease.lockedUntil));
    findings.check(
      `the ${leases.length} rows the killed relay held were published after their lease ran out, by another relay`,
      early.length === 0,
      early.slice(0, 3),
    );

    const paid = finalOrders
      .filter((order) => order.status === 'paid')
      .reduce((sum, order) => sum + order.lines.reduce((s, line) => s + line.quantity, 0), 0);
    const lampNow = await product(cluster, lamp);
    findings.check(
      'stock committed exactly the paid orders, and nothing left: none had two effects',
      lampNow.quantityInStock === initial && lampNow.committedQuantity === paid && lampNow.reservedQuantity === 0,
      { lampNow, paid },
    );
    const sums = await ledger(cluster, lamp);
    findings.check(
      'one commit in the ledger per paid order',
      (sums.kinds.committed ?? 0) === (counts.paid ?? 0),
      sums.kinds,
    );
    await checkLedger(findings, cluster, lamp);
    findings.check(
      'every order is in a final state',
      finalOrders.every((order) => FINAL.includes(order.status)),
    );
    return converged;
  });
}

/**
 * Freezes stock a's link to RabbitMQ while orders flow, waits until its relay
 * holds leased rows it cannot publish, SIGKILLs it, cuts the link (so the
 * broker requeues what it had not acked), and starts it again. Answers the
 * leases it died holding.
 */
async function killRelayMidBatch(
  cluster: Cluster,
  victim: Instance,
  findings: Findings,
  downMs: number,
): Promise<Lease[]> {
  const link = cluster.brokerLink(victim.name);
  link.freeze();
  let candidates: Lease[];
  try {
    candidates = await stuckLeases(cluster, 2_000, 30_000);
  } finally {
    await victim.stop('SIGKILL');
    await link.down();
    link.thaw();
    await link.up();
  }
  // A live relay that happened to be slow has marked its rows by now; what is still leased, unchanged, was the dead
  // one's.
  await sleep(Math.max(downMs, 2_000));
  const rows = await cluster.query(
    'stock',
    `select "id", "locked_until" from "outbox_message" where "published_at" is null and "id" in (${candidates.map((lease) => `'${lease.id}'`).join(', ')})`,
  );
  const still = new Map(rows.map((row) => [String(row.id), Number(row.locked_until)]));
  const leases = candidates.filter((lease) => still.get(lease.id) === lease.lockedUntil);
  findings.figures['outbox rows leased by the relay killed mid-batch'] = leases.length;
  findings.check(
    `${victim.name} was killed mid-batch: its relay held leased rows it had not published`,
    leases.length > 0,
    { candidates: candidates.length, stillLeased: leases.length },
  );
  await victim.start();
  return leases;
}
