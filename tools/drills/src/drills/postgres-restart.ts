import { eventually } from '@platform/test-kit';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { type Instance, onInterrupt, sleep } from '../cluster';
import { call, count, DRILL_POLL_MS, key } from '../load';
import { byStatus, checkLedger, createProduct, type DrillResult, ledger, product, runDrill, settled } from '../system';

export interface PostgresSize {
  readonly workers: number;
  readonly quietMs: number;
  /** How long PostgreSQL stays down. */
  readonly downMs: number;
}

export const FULL_POSTGRES: PostgresSize = { workers: 4, quietMs: 5_000, downMs: 5_000 };

/**
 * The machine's PostgreSQL cluster (pg_ctlcluster), stopped fast and started
 * again, whatever happens in between (an interrupted run starts it too);
 * answers when it was down and when it was started again.
 */
async function restartPostgres(downMs: number): Promise<{ down: number; up: number }> {
  const version = readdirSync('/etc/postgresql')[0]!;
  const ctl = (...args: string[]) =>
    promisify(execFile)('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', ...args], { timeout: 60_000 });
  const start = () => ctl('start').then(() => undefined);
  await ctl('stop', '-m', 'fast');
  const down = Date.now();
  const restore = onInterrupt(start);
  try {
    await sleep(downMs);
  } finally {
    await start();
    restore();
  }
  return { down, up: Date.now() };
}

/** One instance's readiness, sampled every 100 ms until stopped: each sample's time and answer. */
function watchReadiness(instances: readonly Instance[]): { stop(): Promise<Map<Instance, [number, boolean][]>> } {
  const samples = new Map<Instance, [number, boolean][]>(instances.map((instance) => [instance, []]));
  let watching = true;
  const loops = instances.map(async (instance) => {
    while (watching) {
      const at = Date.now();
      samples.get(instance)!.push([at, await instance.ready()]);
      await sleep(100);
    }
  });
  return {
    async stop() {
      watching = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

/** The answers in order with repeats collapsed: `200 → 503 → 200`. */
export function transitions(samples: readonly [number, boolean][]): string {
  const states = samples.map(([, ready]) => (ready ? '200' : '503'));
  return states.filter((state, i) => i === 0 || state !== states[i - 1]).join(' → ');
}

/**
 * Restocks (through stock) and orders (through sales) flow through the
 * gateway, each with an Idempotency-Key, while PostgreSQL is stopped and
 * started again. While it is down the services answer 503 and every stock
 * and sales instance's readiness says 503 (and so does the gateway's: no
 * service has a ready instance); then each recovers by itself to 200, both
 * services serve again, every restock that was acknowledged is in the
 * ledger, and every order that was accepted exists and settles: none lost.
 */
export async function postgresRestartDrill({
  workers,
  quietMs,
  downMs,
}: PostgresSize = FULL_POSTGRES): Promise<DrillResult> {
  return runDrill('PostgreSQL restarted under load', {}, async ({ cluster, findings, requests, steady }) => {
    const lamp = await createProduct(cluster, 'Lamp', 0);
    const cups = await createProduct(cluster, 'Cups', 1_000_000);
    const [writer, buyer] = [await cluster.token('stockWriter'), await cluster.token('buyer')];
    const restocks: string[] = [];
    const orders: string[] = [];
    const lastSuccess = { stock: 0, sales: 0 };
    const load = steady(workers, 10, async (worker, i) => {
      if (i % 2 === 0) {
        const reason = `restock ${worker}/${i} ${key()}`;
        const answer = await call(`${cluster.url}/api/products/${lamp}/stock-adjustments`, {
          method: 'POST',
          token: writer,
          body: { delta: 1, reason },
          headers: { 'idempotency-key': key() },
          timeoutMs: 15_000,
        });
        if (count(requests, answer)) {
          restocks.push(reason);
          lastSuccess.stock = Date.now();
        }
      } else {
        const answer = await call(`${cluster.url}/api/orders`, {
          method: 'POST',
          token: buyer,
          body: { lines: [{ productId: cups, quantity: 1 }] },
          headers: { 'idempotency-key': key() },
          timeoutMs: 15_000,
        });
        if (count(requests, answer, (status) => status === 202) && 'status' in answer) {
          orders.push((answer.body as { id: string }).id);
          lastSuccess.sales = Date.now();
        }
      }
    });
    await sleep(quietMs);
    const watched = [...cluster.of('stock'), ...cluster.of('sales'), cluster.gateway, ...cluster.of('identity')];
    const watch = watchReadiness(watched);
    const { down, up } = await restartPostgres(downMs);
    const recovered = await eventually(
      'every instance ready again',
      60_000,
      async () => (await Promise.all(cluster.instances.map((i) => i.ready()))).every(Boolean) && Date.now(),
      DRILL_POLL_MS,
    );
    await sleep(quietMs);
    const samples = await watch.stop();
    await load.stop();

    for (const [instance, points] of samples)
      findings.figures[`readiness of ${instance.name}`] = transitions(points) || 'not sampled';
    findings.figures['requests failed while down, by answer'] = JSON.stringify(requests.failures);
    findings.figures['PostgreSQL down'] = `${((up - down) / 1000).toFixed(1)} s`;
    for (const instance of watched.filter((i) => i.role !== 'identity')) {
      const points = samples.get(instance)!;
      const whileDown = points.some(([at, ready]) => at >= down && at <= up && !ready);
      const last = points.at(-1);
      findings.check(
        `${instance.name}: readiness 503 while PostgreSQL was down, then 200 by itself`,
        whileDown && last?.[1] === true,
        transitions(points),
      );
    }
    findings.check('stock serves again after the restart (a restock acknowledged)', lastSuccess.stock > recovered);
    findings.check('sales serves again after the restart (an order accepted)', lastSuccess.sales > recovered);
    const rows = await cluster.query(
      'stock',
      `select "reason" from "stock_movement" where "product_id" = ${lamp} and "kind" = 'adjusted'`,
    );
    const recorded = new Set(rows.map((row) => String(row.reason)));
    const lost = restocks.filter((reason) => !recorded.has(reason));
    findings.check(
      `every acknowledged restock (${restocks.length}) is in the ledger`,
      lost.length === 0,
      lost.slice(0, 3),
    );
    findings.check(
      'the stock counts every restock the ledger has, acknowledged or not',
      (await product(cluster, lamp)).quantityInStock === (await ledger(cluster, lamp)).quantity,
    );
    const { orders: all } = await settled(cluster, orders.length, 120_000);
    const known = new Set(all.map((order) => order.id));
    const missing = orders.filter((id) => !known.has(id));
    const acceptedOnes = new Set(orders);
    const states = byStatus(all.filter((order) => acceptedOnes.has(order.id)));
    findings.check(
      `every accepted order (${orders.length}) exists and is reserved`,
      missing.length === 0 && states.reserved === orders.length,
      { missing: missing.length, ...states },
    );
    await checkLedger(findings, cluster, lamp);
    await checkLedger(findings, cluster, cups);
    return recovered - down;
  });
}
