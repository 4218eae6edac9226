import { sleep } from '../cluster';
import { call, count, key, until } from '../load';
import { checkLedger, createProduct, type DrillResult, eventFlows, metric, runDrill, sum, tableSizes, whose } from '../system';

export interface SoakSize {
  readonly minutes: number;
  readonly workers: number;
  /** Pause of each worker between two requests. */
  readonly pauseMs: number;
  /** Whether to hold the slopes to a bound (a short soak is too short to tell growth from noise: its slopes are only reported). */
  readonly judgeSlopes: boolean;
  /** The services' OUTBOX_RETENTION_SECONDS and IDEMPOTENCY_TTL_SECONDS: short, so the sweepers have work within the soak. */
  readonly retentionSeconds: number;
  /** The services' RETENTION_SWEEP_MS. */
  readonly sweepMs: number;
}

export const FULL_SOAK: SoakSize = { minutes: 10, workers: 4, pauseMs: 20, judgeSlopes: true, retentionSeconds: 60, sweepMs: 15_000 };

/** A process whose RSS grows faster than this after warm-up is reported as growing. */
const MAX_SLOPE_MIB_PER_MINUTE = 2;

/** The least-squares slope of `points` (minutes, MiB). */
export function slope(points: readonly [number, number][]): number {
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
 * and their payments), with published events, idempotency records and inbox
 * entries kept only `retentionSeconds` and swept every `sweepMs`: no request
 * may fail; the sweepers must have deleted what outlived its retention, and
 * nothing older than the retention plus two sweeps may be left in the outbox
 * or the `idempotency_key` table; every process's RSS slope after the first
 * third is reported (and held to a bound only in the full run: a minute of
 * samples cannot tell growth from noise).
 */
export async function soakDrill({ minutes, workers, pauseMs, judgeSlopes, retentionSeconds, sweepMs }: SoakSize = FULL_SOAK): Promise<DrillResult> {
  const serviceEnv = { OUTBOX_RETENTION_SECONDS: String(retentionSeconds), IDEMPOTENCY_TTL_SECONDS: String(retentionSeconds), RETENTION_SWEEP_MS: String(sweepMs) };
  return runDrill(`Soak, ${minutes} min of mixed load`, { serviceEnv }, async ({ cluster, findings, requests, steady }) => {
    const lamp = await createProduct(cluster, 'Lamp', 10_000_000);
    const reserved: string[] = [];
    const load = steady(workers, pauseMs, async (worker, i) => {
      const [writer, buyer, provider] = [await cluster.token('stockWriter'), await cluster.token('buyer'), await cluster.token('paymentProvider')];
      switch (i % 5) {
        case 0:
        case 1:
          count(requests, await call(`${cluster.url}/api/products/${lamp}`, { token: writer }));
          break;
        case 2:
          count(requests, await call(`${cluster.url}/api/products/${lamp}/stock-adjustments`, { method: 'POST', token: writer, body: { delta: 1 }, headers: { 'idempotency-key': key() } }));
          break;
        case 3: {
          const answer = await call(`${cluster.url}/api/orders`, { method: 'POST', token: buyer, body: { lines: [{ productId: lamp, quantity: 1 }] }, headers: { 'idempotency-key': key() } });
          if (count(requests, answer, (status) => status === 202) && 'status' in answer) reserved.push((answer.body as { id: string }).id);
          break;
        }
        default: {
          // The payment provider pays an order placed a while ago (stock has held it by now), or the buyer reads its orders if none is old enough.
          const id = reserved.length > workers * 4 ? reserved.shift() : undefined;
          if (id) count(requests, await call(`${cluster.url}/api/orders/${id}/payment`, { method: 'POST', token: provider }), (status) => status === 200 || status === 409);
          else count(requests, await call(`${cluster.url}/api/orders?limit=10`, { token: buyer }));
        }
      }
    });
    const started = Date.now();
    const durationMs = minutes * 60_000;
    // Anything published, or any record expired, longer ago than this must have been swept by now.
    const grace = retentionSeconds * 1000 + 2 * sweepMs;
    const overdue = async (service: 'stock' | 'sales', now: number) => {
      const [row] = await cluster.query(service, `select (select count(*) from "outbox_message" where "published_at" < ${now - grace})::int as "events", (select count(*) from "idempotency_key" where "expires_at" < ${now - 2 * sweepMs})::int as "records"`);
      return { events: Number(row!.events), records: Number(row!.records) };
    };
    const samples = new Map<string, [number, number][]>();
    let maxSizes: Record<string, number> = {};
    const late: { at: number; service: string; events: number; records: number }[] = [];
    let retentionChecks = 0;
    while (Date.now() - started < durationMs) {
      await sleep(Math.min(10_000, durationMs / 12));
      const now = Date.now();
      const at = (now - started) / 60_000;
      for (const instance of cluster.instances) {
        const rss = instance.rssMiB();
        if (rss !== undefined) samples.set(instance.name, [...(samples.get(instance.name) ?? []), [at, rss]]);
      }
      const sizes = await tableSizes(cluster);
      maxSizes = Object.fromEntries(Object.entries(sizes).map(([name, size]) => [name, Math.max(size, maxSizes[name] ?? 0)]));
      // Once the soak is older than the grace, every sample holds the tables to their retention.
      if (now - started < grace) continue;
      retentionChecks++;
      for (const service of ['stock', 'sales'] as const) {
        const found = await overdue(service, now);
        if (found.events > 0 || found.records > 0) late.push({ at: Math.round((now - started) / 1000), service, ...found });
      }
    }
    await load.stop();

    const slopes = Object.fromEntries([...samples].map(([name, points]) => [name, slope(points.filter(([at]) => at >= minutes / 3))]));
    findings.figures[`RSS slope after warm-up, MiB/min${judgeSlopes ? '' : ' (reported, not judged: too short to tell)'}`] = Object.entries(slopes).map(([name, s]) => `${name} ${s.toFixed(2)}`).join(', ');
    findings.figures['RSS at the end, MiB'] = [...samples].map(([name, points]) => `${name} ${Math.round(points.at(-1)![1])}`).join(', ');
    findings.figures['largest outbox / idempotency_key inbox entries, rows'] = `stock ${maxSizes['stock outbox']} / ${maxSizes['stock inbox']}, sales ${maxSizes['sales outbox']} / ${maxSizes['sales inbox']}`;
    findings.check(`no request failed in ${minutes} min`, requests.failed === 0, requests.failures);
    if (judgeSlopes) {
      const growing = Object.entries(slopes).filter(([, s]) => s > MAX_SLOPE_MIB_PER_MINUTE);
      findings.check(`every process's RSS flat after warm-up (slope under ${MAX_SLOPE_MIB_PER_MINUTE} MiB/min)`, growing.length === 0, growing);
    }

    // Retention: what outlived it was swept, and at no sample was anything older than the retention plus two sweeps left.
    findings.check(`the tables were held to their retention (plus two sweeps, ${grace / 1000} s) at every sample past it (${retentionChecks}): nothing overdue`, retentionChecks > 0 && late.length === 0, late.length > 0 ? late.slice(0, 4) : { retentionChecks });
    const flows = await eventFlows(cluster);
    for (const service of ['stock', 'sales'] as const) {
      const [row] = await cluster.query(service, `select count(*)::int as "published" from "outbox_message" where "published_at" is not null`);
      const published = sum(await Promise.all(cluster.of(service).map((instance) => metric(instance, 'messaging_events_published_total'))));
      const swept = published - Number(row!.published);
      findings.figures[`${service}: published events swept / kept`] = `${swept} / ${row!.published}`;
      findings.check(`${service}: its sweepers deleted published events past their retention`, swept > 0, { published, kept: row!.published });
    }
    // Inbox entries and HTTP idempotency records share one table: what the consumers handled, less what is kept, was swept.
    for (const [publisher, flow] of Object.entries(flows)) {
      const consumer = publisher === 'stock' ? 'sales' : 'stock';
      findings.check(`${whose(consumer)} inbox of ${whose(publisher)} events was swept: fewer entries kept (${flow.consumed}) than events handled (${flow.handled})`, flow.consumed < flow.handled, flow);
    }
    const drained = await until('both outboxes to drain', 30_000, async () => {
      const sizes = await tableSizes(cluster);
      return sizes['stock unpublished'] === 0 && sizes['sales unpublished'] === 0;
    }).catch(() => false);
    findings.check('every event published once the load stops', drained);
    await checkLedger(findings, cluster, lamp);
    return undefined;
  });
}
