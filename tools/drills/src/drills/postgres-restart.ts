import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { Cluster, sleep } from '../cluster';
import { call, count, key, steady, tally, until } from '../load';
import { checkLedger, createProduct, type DrillResult, Findings, ledger, product } from '../system';

export interface PostgresSize {
  readonly workers: number;
  readonly quietMs: number;
  /** How long PostgreSQL stays down. */
  readonly downMs: number;
}

export const FULL_POSTGRES: PostgresSize = { workers: 4, quietMs: 5_000, downMs: 5_000 };

/** The machine's PostgreSQL cluster (pg_ctlcluster), stopped fast and started again. */
async function restartPostgres(downMs: number): Promise<void> {
  const version = readdirSync('/etc/postgresql')[0]!;
  const ctl = (...args: string[]) => promisify(execFile)('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', ...args], { timeout: 60_000 });
  await ctl('stop', '-m', 'fast');
  await sleep(downMs);
  await ctl('start');
}

/**
 * Restocks flow through the gateway, each with an Idempotency-Key and a
 * reason that names it, while PostgreSQL is stopped and started again. While
 * it is down the services answer 503 and their readiness says so; then they
 * recover by themselves, and every restock that was acknowledged is in the
 * ledger: none lost.
 */
export async function postgresRestartDrill({ workers, quietMs, downMs }: PostgresSize = FULL_POSTGRES): Promise<DrillResult> {
  const cluster = await Cluster.start();
  const findings = new Findings();
  const requests = tally();
  try {
    const lamp = await createProduct(cluster, 'Lamp', 0);
    const acknowledged: string[] = [];
    const load = steady(workers, 10, async (worker, i) => {
      const reason = `restock ${worker}/${i} ${key()}`;
      const answer = await call(`${cluster.url}/api/products/${lamp}/stock-adjustments`, { method: 'POST', token: cluster.tokens.stockWriter, body: { delta: 1, reason }, headers: { 'idempotency-key': key() }, timeoutMs: 15_000 });
      if (count(requests, answer)) acknowledged.push(reason);
    });
    await sleep(quietMs);
    const stock = cluster.of('stock')[0]!;
    const readiness: string[] = [];
    const watching = (async () => {
      for (let i = 0; i < 200 && readiness.at(-1) !== 'ready again'; i++) {
        const ready = await stock.ready();
        if (!ready && !readiness.includes('503')) readiness.push('503');
        if (ready && readiness.includes('503')) readiness.push('ready again');
        await sleep(100);
      }
    })();
    const down = Date.now();
    await restartPostgres(downMs);
    const recovered = await until('every instance ready again', 60_000, async () => (await Promise.all(cluster.instances.map((i) => i.ready()))).every(Boolean) && Date.now());
    await watching;
    await sleep(quietMs);
    await load.stop();
    findings.figures['readiness of stock a'] = readiness.join(' → ') || 'never 503';
    findings.figures['503s while down'] = requests.failures['503'] ?? 0;
    findings.check('readiness said 503 while PostgreSQL was down, then 200 again by itself', readiness.join() === '503,ready again', readiness);
    findings.check('requests succeed again after the restart', requests.succeeded > acknowledged.length - 1 && acknowledged.length > 0);
    const rows = await cluster.query('stock', `select "reason" from "stock_movement" where "product_id" = ${lamp} and "kind" = 'adjusted'`);
    const recorded = new Set(rows.map((row) => String(row.reason)));
    const lost = acknowledged.filter((reason) => !recorded.has(reason));
    findings.check(`every acknowledged restock (${acknowledged.length}) is in the ledger`, lost.length === 0, lost.slice(0, 3));
    findings.check('the stock counts every restock the ledger has, acknowledged or not', (await product(cluster, lamp)).quantityInStock === (await ledger(cluster, lamp)).quantity);
    await checkLedger(findings, cluster, lamp);
    return findings.result('PostgreSQL restarted under load', requests.sent, requests.failed, recovered - down);
  } finally {
    await cluster.stop();
  }
}
