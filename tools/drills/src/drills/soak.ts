import { eventually } from '@platform/test-kit';
import { sleep } from '../cluster';
import { call, count, DRILL_POLL_MS, key } from '../load';
import {
  checkLedger,
  createProduct,
  type DrillResult,
  eventFlows,
  metric,
  type Order,
  runDrill,
  sum,
  tableSizes,
  whose,
} from '../system';

export interface SoakSize {
  readonly minutes: number;
  readonly workers: number;
  /** Pause of each worker between two requests. */
  readonly pauseMs: number;
  /**
   * Whether to hold the slopes to a bound (a short soak is too short to tell growth from noise: its slopes are only
   * reported).
   */
  readonly judgeSlopes: boolean;
  /**
   * The services' OUTBOX_RETENTION_SECONDS and IDEMPOTENCY_TTL_SECONDS: short, so the sweepers have work within the
   * soak.
   */
  readonly retentionSeconds: number;
  /** The services' RETENTION_SWEEP_MS. */
  readonly sweepMs: number;
}

export const FULL_SOAK: SoakSize = {
  minutes: 10,
  workers: 4,
  pauseMs: 20,
  judgeSlopes: true,
  retentionSeconds: 60,
  sweepMs: 15_000,
};

/** A process whose RSS, less V8's young generation, grows faster than this after warm-up is reported as growing. */
export const MAX_SLOPE_MIB_PER_MINUTE = 2;
const MiB = 1024 * 1024;

/**
 * One sample of a process's memory, `at` minutes into the soak: its RSS, and what V8's young generation (new space)
 * held of it.
 */
export interface MemorySample {
  readonly at: number;
  readonly rssMiB: number;
  readonly youngMiB: number;
}

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
 * The slopes after warm-up (from `from` minutes on) of a process's RSS, and of
 * its RSS less V8's young generation: the second is the one to judge. V8 sizes
 * the young generation to the load and resizes it as it goes, up to 32 MiB on
 * Node 20: the gateway's moved between 4 and 32 MiB, in steps of up to 28 MiB
 * both ways, in its first ten minutes, in an hour whose RSS levelled off
 * (docs/operations.md). Ten minutes of RSS alone read one such step as growth;
 * what is left once it is taken out is the old generation and native memory,
 * where a leak shows.
 */
export function memorySlopes(
  samples: readonly MemorySample[],
  from: number,
): { readonly rss: number; readonly outsideYoung: number } {
  const late = samples.filter(({ at }) => at >= from);
  return {
    rss: slope(late.map(({ at, rssMiB }) => [at, rssMiB])),
    outsideYoung: slope(late.map(({ at, rssMiB, youngMiB }) => [at, rssMiB - youngMiB])),
  };
}

/**
 * A mixed workload through the gateway for `minutes` (reads, restocks, orders
 * and their payments), with published events, idempotency records and inbox
 * entries kept only `retentionSeconds` and swept every `sweepMs`: no request
 * may fail; the sweepers must have deleted what outlived its retention, and
 * nothing older than the retention plus two sweeps may be left in the outbox
 * or the `idempotency_key` table; every process's RSS slope after the first
 * third is reported, and the slope of its RSS less V8's young generation
 * (memorySlopes) held to a bound, in the full run only: a minute of samples
 * cannot tell growth from noise.
 */
export async function soakDrill({
  minutes,
  workers,
  pauseMs,
  judgeSlopes,
  retentionSeconds,
  sweepMs,
}: SoakSize = FULL_SOAK): Promise<DrillResult> {
  const serviceEnv = {
    OUTBOX_RETENTION_SECONDS: String(retentionSeconds),
    IDEMPOTENCY_TTL_SECONDS: String(retentionSeconds),
    RETENTION_SWEEP_MS: String(sweepMs),
  };
  return runDrill(
    `Soak, ${minutes} min of mixed load`,
    { serviceEnv },
    async ({ cluster, findings, requests, steady }) => {
      const lamp = await createProduct(cluster, 'Lamp', 10_000_000);
      const reserved: string[] = [];
      const load = steady(workers, pauseMs, async (worker, i) => {
        const [writer, buyer] = [await cluster.token('stockWriter'), await cluster.token('buyer')];
        switch (i % 5) {
          case 0:
          case 1:
            count(requests, await call(`${cluster.url}/api/products/${lamp}`, { token: writer }));
            break;
          case 2:
            count(
              requests,
              await call(`${cluster.url}/api/products/${lamp}/stock-adjustments`, {
                method: 'POST',
                token: writer,
                body: { delta: 1 },
                headers: { 'idempotency-key': key() },
              }),
            );
            break;
          case 3: {
            const answer = await call(`${cluster.url}/api/orders`, {
              method: 'POST',
              token: buyer,
              body: { lines: [{ productId: lamp, quantity: 1 }] },
              headers: { 'idempotency-key': key() },
            });
            if (count(requests, answer, (status) => status === 202) && 'status' in answer)
              reserved.push((answer.body as { id: string }).id);
            break;
          }
          default: {
            // The buyer pays an order placed a while ago at the provider, once sales has created its intent (it waits
            // its turn again if not yet), or reads its orders if none is old enough.
            const id = reserved.length > workers * 4 ? reserved.shift() : undefined;
            if (!id) {
              count(requests, await call(`${cluster.url}/api/orders?limit=10`, { token: buyer }));
              break;
            }
            const answer = await call(`${cluster.url}/api/orders/${id}`, { token: buyer });
            const intentId = count(requests, answer) && 'status' in answer && (answer.body as Order).payment?.intentId;
            if (intentId) count(requests, await cluster.confirmPayment(intentId));
            else reserved.push(id);
          }
        }
      });
      const started = Date.now();
      const durationMs = minutes * 60_000;
      // Anything published, or any record expired, longer ago than this must have been swept by now.
      const grace = retentionSeconds * 1000 + 2 * sweepMs;
      const overdue = async (service: 'stock' | 'sales', now: number) => {
        const [row] = await cluster.query(
          service,
          `select (select count(*) from "outbox_message" where "published_at" < ${now - grace})::int as "events", (select count(*) from "idempotency_key" where "expires_at" < ${now - 2 * sweepMs})::int as "records"`,
        );
        return { events: Number(row!.events), records: Number(row!.records) };
      };
      const samples = new Map<string, MemorySample[]>();
      let maxSizes: Record<string, number> = {};
      const late: { at: number; service: string; events: number; records: number }[] = [];
      let retentionChecks = 0;
      while (Date.now() - started < durationMs) {
        await sleep(Math.min(10_000, durationMs / 12));
        const now = Date.now();
        const at = (now - started) / 60_000;
        for (const instance of cluster.systemInstances) {
          // The young generation from the process's own metrics, then its RSS at once, so the two describe the same
          // moment.
          const youngMiB = await metric(instance, 'nodejs_heap_space_size_total_bytes', { space: 'new' }).then(
            (bytes) => bytes / MiB,
            () => undefined,
          );
          const rssMiB = instance.rssMiB();
          if (rssMiB !== undefined && youngMiB !== undefined)
            samples.set(instance.name, [...(samples.get(instance.name) ?? []), { at, rssMiB, youngMiB }]);
        }
        const sizes = await tableSizes(cluster);
        maxSizes = Object.fromEntries(
          Object.entries(sizes).map(([name, size]) => [name, Math.max(size, maxSizes[name] ?? 0)]),
        );
        // Once the soak is older than the grace, every sample holds the tables to their retention.
        if (now - started < grace) continue;
        retentionChecks++;
        for (const service of ['stock', 'sales'] as const) {
          const found = await overdue(service, now);
          if (found.events > 0 || found.records > 0)
            late.push({ at: Math.round((now - started) / 1000), service, ...found });
        }
      }
      await load.stop();

      const slopes = Object.fromEntries(
        [...samples].map(([name, points]) => [name, memorySlopes(points, minutes / 3)]),
      );
      const listed = (figure: (name: string, points: readonly MemorySample[]) => string) =>
        [...samples].map(([name, points]) => `${name} ${figure(name, points)}`).join(', ');
      findings.figures['RSS slope after warm-up, MiB/min'] = listed((name) => slopes[name]!.rss.toFixed(2));
      findings.figures[
        `RSS less the young generation: slope after warm-up, MiB/min${judgeSlopes ? '' : ' (reported, not judged: too short to tell)'}`
      ] = listed((name) => slopes[name]!.outsideYoung.toFixed(2));
      findings.figures['RSS at the end, MiB'] = listed((_, points) => String(Math.round(points.at(-1)!.rssMiB)));
      findings.figures['young generation, least–most, MiB'] = listed(
        (_, points) =>
          `${Math.min(...points.map((p) => p.youngMiB)).toFixed(1)}–${Math.max(...points.map((p) => p.youngMiB)).toFixed(1)}`,
      );
      findings.figures['largest outbox / idempotency_key inbox entries, rows'] =
        `stock ${maxSizes['stock outbox']} / ${maxSizes['stock inbox']}, sales ${maxSizes['sales outbox']} / ${maxSizes['sales inbox']}`;
      findings.check(`no request failed in ${minutes} min`, requests.failed === 0, requests.failures);
      if (judgeSlopes) {
        const growing = Object.entries(slopes).filter(([, s]) => s.outsideYoung > MAX_SLOPE_MIB_PER_MINUTE);
        // A process whose metrics did not answer after warm-up would otherwise pass unjudged.
        const unsampled = cluster.systemInstances
          .filter((instance) => (samples.get(instance.name) ?? []).filter(({ at }) => at >= minutes / 3).length < 2)
          .map((instance) => instance.name);
        findings.check(
          `every process's RSS, less V8's young generation, flat after warm-up (slope under ${MAX_SLOPE_MIB_PER_MINUTE} MiB/min)`,
          growing.length === 0 && unsampled.length === 0,
          { growing: growing.map(([name, s]) => [name, s.outsideYoung]), unsampled },
        );
      }

      // Retention: what outlived it was swept, and at no sample was anything older than the retention plus two sweeps
      // left.
      findings.check(
        `the tables were held to their retention (plus two sweeps, ${grace / 1000} s) at every sample past it (${retentionChecks}): nothing overdue`,
        retentionChecks > 0 && late.length === 0,
        late.length > 0 ? late.slice(0, 4) : { retentionChecks },
      );
      const flows = await eventFlows(cluster);
      for (const service of ['stock', 'sales'] as const) {
        const [row] = await cluster.query(
          service,
          `select count(*)::int as "published" from "outbox_message" where "published_at" is not null`,
        );
        const published = sum(
          await Promise.all(
            cluster.of(service).map((instance) => metric(instance, 'messaging_events_published_total')),
          ),
        );
        const swept = published - Number(row!.published);
        findings.figures[`${service}: published events swept / kept`] = `${swept} / ${Number(row!.published)}`;
        findings.check(`${service}: its sweepers deleted published events past their retention`, swept > 0, {
          published,
          kept: row!.published,
        });
      }
      // Inbox entries and HTTP idempotency records share one table: what the consumers handled, less what is kept, was
      // swept.
      for (const [publisher, flow] of Object.entries(flows)) {
        const consumer = publisher === 'stock' ? 'sales' : 'stock';
        findings.check(
          `${whose(consumer)} inbox of ${whose(publisher)} events was swept: fewer entries kept (${flow.consumed}) than events handled (${flow.handled})`,
          flow.consumed < flow.handled,
          flow,
        );
      }
      const drained = await eventually(
        'both outboxes to drain',
        30_000,
        async () => {
          const sizes = await tableSizes(cluster);
          return sizes['stock unpublished'] === 0 && sizes['sales unpublished'] === 0;
        },
        DRILL_POLL_MS,
      ).catch(() => false);
      findings.check('every event published once the load stops', drained);
      await checkLedger(findings, cluster, lamp);
      return undefined;
    },
  );
}
