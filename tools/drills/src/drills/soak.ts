import { Cluster, sleep } from '../cluster';
import { call, count, key, steady, tally, until } from '../load';
import { checkLedger, createProduct, type DrillResult, Findings, tableSizes } from '../system';

export interface SoakSize {
  readonly minutes: number;
  readonly workers: number;
  /** Pause of each worker between two requests. */
  readonly pauseMs: number;
  /** Whether to hold the slopes to a bound (a short soak is too short to tell growth from noise). */
  readonly judgeSlopes: boolean;
}

export const FULL_SOAK: SoakSize = { minutes: 10, workers: 4, pauseMs: 20, judgeSlopes: true };

/** Retention short enough for the sweepers to have work within the soak. */
const RETENTION_SECONDS = 60;
/** The sweepers run every minute (SWEEP_INTERVAL_MS of the services). */
const SWEEP_MS = 60_000;
/** A process whose RSS grows faster than this after warm-up is reported as growing. */
const MAX_SLOPE_MIB_PER_MINUTE = 2;

/** The least-squares slope of `points` (minutes, MiB). */
function slope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/**
 * A mixed workload through the gateway for `minutes` (reads, restocks, orders
 * and their payments), with published events and inbox entries kept only a
 * minute: no request may fail, every process's memory must stay flat after
 * the first third (the slope of its RSS is reported), and the outbox and the
 * inbox must not grow beyond their retention.
 */
export async function soakDrill({ minutes, workers, pauseMs, judgeSlopes }: SoakSize = FULL_SOAK): Promise<DrillResult> {
  const cluster = await Cluster.start({ serviceEnv: { OUTBOX_RETENTION_SECONDS: String(RETENTION_SECONDS), IDEMPOTENCY_TTL_SECONDS: String(RETENTION_SECONDS) } });
  const findings = new Findings();
  const requests = tally();
  try {
    const lamp = await createProduct(cluster, 'Lamp', 10_000_000);
    const reserved: string[] = [];
    const load = steady(workers, pauseMs, async (worker, i) => {
      switch (i % 5) {
        case 0:
        case 1:
          count(requests, await call(`${cluster.url}/api/products/${lamp}`, { token: cluster.tokens.stockWriter }));
          break;
        case 2:
          count(requests, await call(`${cluster.url}/api/products/${lamp}/stock-adjustments`, { method: 'POST', token: cluster.tokens.stockWriter, body: { delta: 1 }, headers: { 'idempotency-key': key() } }));
          break;
        case 3: {
          const answer = await call(`${cluster.url}/api/orders`, { method: 'POST', token: cluster.tokens.buyer, body: { lines: [{ productId: lamp, quantity: 1 }] }, headers: { 'idempotency-key': key() } });
          if (count(requests, answer, (status) => status === 202) && 'status' in answer) reserved.push((answer.body as { id: string }).id);
          break;
        }
        default: {
          // Pay an order placed a while ago (stock has held it by now), or read one if none is old enough.
          const id = reserved.length > workers * 4 ? reserved.shift() : undefined;
          if (id) count(requests, await call(`${cluster.url}/api/orders/${id}/payment`, { method: 'POST', token: cluster.tokens.buyer }), (status) => status === 200 || status === 409);
          else count(requests, await call(`${cluster.url}/api/orders?limit=10`, { token: cluster.tokens.buyer }));
        }
      }
    });
    const started = Date.now();
    const durationMs = minutes * 60_000;
    const samples = new Map<string, [number, number][]>();
    let maxSizes: Record<string, number> = {};
    while (Date.now() - started < durationMs) {
      await sleep(Math.min(10_000, durationMs / 12));
      const at = (Date.now() - started) / 60_000;
      for (const instance of cluster.instances) {
        const rss = instance.rssMiB();
        if (rss !== undefined) samples.set(instance.name, [...(samples.get(instance.name) ?? []), [at, rss]]);
      }
      const sizes = await tableSizes(cluster);
      maxSizes = Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, Math.max(size, maxSizes[name] ?? 0)]));
    }
    await load.stop();
    const slopes = Object.fromEntries(
      [...samples].map(([name, points]) => [name, slope(points.filter(([at]) => at >= minutes / 3))]),
    );
    findings.figures['RSS slope after warm-up, MiB/min'] = Object.entries(slopes).map(([name, s]) => `${name} ${s.toFixed(2)}`).join(', ');
    findings.figures['RSS at the end, MiB'] = [...samples].map(([name, points]) => `${name} ${Math.round(points.at(-1)![1])}`).join(', ');
    findings.figures['largest outbox / inbox, rows'] = `stock ${maxSizes['stock outbox']} / ${maxSizes['stock inbox']}, sales ${maxSizes['sales outbox']} / ${maxSizes['sales inbox']}`;
    findings.check(`no request failed in ${minutes} min`, requests.failed === 0, requests.failures);
    if (judgeSlopes) {
      const growing = Object.entries(slopes).filter(([, s]) => s > MAX_SLOPE_MIB_PER_MINUTE);
      findings.check(`every process's RSS flat after warm-up (slope under ${MAX_SLOPE_MIB_PER_MINUTE} MiB/min)`, growing.length === 0, growing);
    }
    // Published events and inbox entries past their retention, plus two sweeps, must be gone.
    const cutoff = Date.now() - RETENTION_SECONDS * 1000 - 2 * SWEEP_MS;
    if (minutes * 60_000 > RETENTION_SECONDS * 1000 + 2 * SWEEP_MS) {
      for (const service of ['stock', 'sales'] as const) {
        const [row] = await cluster.query(service, `select (select count(*) from "outbox_message" where "published_at" < ${cutoff})::int as "outbox", (select count(*) from "idempotency_key" where "expires_at" < ${cutoff})::int as "inbox"`);
        findings.check(`${service}: nothing kept in the outbox or the inbox past its retention`, Number(row!.outbox) === 0 && Number(row!.inbox) === 0, row);
      }
    }
    const drained = await until('both outboxes to drain', 30_000, async () => {
      const sizes = await tableSizes(cluster);
      return sizes['stock unpublished'] === 0 && sizes['sales unpublished'] === 0;
    }).catch(() => false);
    findings.check('every event published once the load stops', drained);
    await checkLedger(findings, cluster, lamp);
    return findings.result(`Soak, ${minutes} min of mixed load`, requests.sent, requests.failed, undefined);
  } finally {
    await cluster.stop();
  }
}
