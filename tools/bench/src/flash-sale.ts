/**
 * pnpm bench:flash-sale [--buyers 2000] [--units 100] [--instances 2,1] [--out bench-results]
 *
 * A flash sale: `units` of one product on sale, and `buyers` orders of one unit each sent at once through the
 * gateway, with a buyer's token, to N stock and N sales instances on one PostgreSQL and one RabbitMQ (the drills'
 * cluster: real processes on loopback). For each N it reports the time until every order is decided, the order
 * latency (from its POST to the first poll that sees it reserved or rejected) at p50 and p99, and CPU per order, of
 * the services and of the whole machine (PostgreSQL, RabbitMQ and this load generator included). Every run checks its
 * own invariants and exits 1 when one breaks: exactly `units` orders reserved, the rest rejected for
 * insufficient-stock, none left pending (the count still pending when it stops waiting is reported), none lost, no
 * event dead-lettered, stock holds exactly what it sold and never more than it had. The services run the JavaScript
 * `pnpm build` makes (built first), as production runs them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildDist } from '@tools/build';
import { Cluster, runBuilt, stopAll } from '@tools/drills/cluster';
import { createProduct, histogram, product } from '@tools/drills/system';
import { percentile } from './paced-latency';
import { cpuSeconds } from './target-process';

const { values } = parseArgs({
  options: {
    buyers: { type: 'string', default: '2000' },
    units: { type: 'string', default: '100' },
    instances: { type: 'string', default: '2,1' },
    out: { type: 'string', default: 'bench-results' },
  },
});
const buyers = Number(values.buyers);
const units = Number(values.units);
const topologies = values.instances.split(',').map(Number);
if (![buyers, units, ...topologies].every((n) => Number.isSafeInteger(n) && n > 0) || units > buyers) {
  process.stderr.write('usage: pnpm bench:flash-sale [--buyers N] [--units M ≤ N] [--instances 2,1]\n');
  process.exit(2);
}

/** The kernel's clock ticks a second, as target-process.ts's cpuSeconds counts them too. */
const TICKS_PER_SECOND = 100;
/** A cluster instance's CPU seconds so far (none when it has no process). */
const instanceCpuSeconds = (pid: number | undefined) => (pid === undefined ? 0 : cpuSeconds(pid));
/** The whole machine's busy CPU seconds (every core, everything but idle and iowait), from /proc/stat. */
function machineBusySeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  const idle = ticks[3]! + ticks[4]!;
  return (ticks.slice(0, 8).reduce((a, b) => a + b, 0) - idle) / TICKS_PER_SECOND;
}

const MAX_ATTEMPTS = 10;
/** How long sales gives stock to answer an order, well within the bench's wait for every order to be decided. */
const ANSWER_TIMEOUT_SECONDS = 240;
const DECISION_WAIT_MS = 300_000;

/** One POST /api/orders of one unit: its status, the order's id, or what refused it (status and problem code). */
async function placeOrder(gateway: string, token: string, productId: number, key: string) {
  const response = await fetch(`${gateway}/api/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ lines: [{ productId, quantity: 1 }] }),
  }).catch((error: Error) => error);
  if (response instanceof Error) return { status: 0, outcome: response.message, retryAfterMs: 1_000 };
  const body = (await response.json().catch(() => ({}))) as { id?: string; code?: string };
  return {
    status: response.status,
    id: body.id,
    // A refusal names its layer by the problem's code (the gateway, a service, its database).
    outcome: `${response.status} ${body.code ?? ''}`.trim(),
    retryAfterMs: Math.min(10, Number(response.headers.get('retry-after')) || 1) * 1_000,
  };
}

interface SaleResult {
  readonly instances: number;
  readonly buyers: number;
  readonly units: number;
  readonly accepted: number;
  /** The 502s, 503s and 504s a buyer was answered before its order was taken, by status and problem code. */
  readonly retried: Record<string, number>;
  readonly reserved: number;
  readonly rejectedInsufficientStock: number;
  readonly other: Record<string, number>;
  /** Orders still pending (neither reserved nor rejected) when the bench stopped waiting: none, or the run broke. */
  readonly pending: number;
  /** Events an instance dead-lettered after its handler failed on every delivery, by instance: should be none. */
  readonly deadLettered: Record<string, number>;
  readonly decidedInMs: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number };
  readonly serviceCpuMsPerOrder: number;
  readonly machineCpuMsPerOrder: number;
  readonly stock: { readonly onHand: number; readonly reserved: number };
  readonly broken: string[];
}

async function flashSale(instances: number): Promise<SaleResult> {
  const cluster = await Cluster.start({
    stock: instances,
    sales: instances,
    // Holds outlive the bench: nothing expires while the orders are counted.
    stockEnv: { RESERVATION_TTL_SECONDS: '3600' },
    // Sales decides an order stock has not answered by then (rejected, stock-unanswered): within the bench's wait.
    salesEnv: { ORDER_ANSWER_TIMEOUT_SECONDS: String(ANSWER_TIMEOUT_SECONDS) },
  });
  try {
    const productId = await createProduct(cluster, 'Flash sale lamp', units);
    const token = await cluster.token('buyer');
    const services = cluster.instances.filter((instance) => instance.role !== 'identity');
    const deadLetters = services.map(
      (instance) =>
        [instance.name, instance.watch('dead-lettering an event whose handler failed on every delivery')] as const,
    );
    const cpuBefore = services.map((instance) => instanceCpuSeconds(instance.pid));
    const machineBefore = machineBusySeconds();
    const started = performance.now();
    const sentAt = new Map<string, number>();
    const refusals: (string | number)[] = [];
    // Each buyer as a real client: a 502, a 503 or a 504 is asked again with the same Idempotency-Key (after its
    // Retry-After, at most 10 times), so a shed request is neither lost nor placed twice. The gateway's 502 says the
    // request may or may not have been applied, which the key makes safe to ask again.
    const answers = await Promise.all(
      Array.from({ length: buyers }, async (_, i) => {
        const at = performance.now();
        for (let attempt = 1; ; attempt++) {
          const answer = await placeOrder(cluster.url, token, productId, `flash-sale-${instances}-${i}`);
          if (answer.status === 202 && answer.id) sentAt.set(answer.id, at);
          if (answer.status === 202 || ![502, 503, 504, 0].includes(answer.status) || attempt === MAX_ATTEMPTS)
            return answer.status === 202 ? 202 : answer.outcome;
          refusals.push(answer.outcome);
          await new Promise((resolve) => setTimeout(resolve, answer.retryAfterMs));
        }
      }),
    );
    const accepted = answers.filter((status) => status === 202).length;
    // Each order's decision, seen by polling sales' database (the truth, not an instance's view of it).
    const decidedAt = new Map<string, number>();
    const deadline = Date.now() + DECISION_WAIT_MS;
    let rows: Record<string, unknown>[] = [];
    while (decidedAt.size < accepted && Date.now() < deadline) {
      rows = await cluster.query('sales', `select "id", "status", "failure_reason" from "sales_order"`);
      const now = performance.now();
      for (const row of rows)
        if (row.status !== 'pending' && !decidedAt.has(String(row.id))) decidedAt.set(String(row.id), now);
      if (decidedAt.size < accepted) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const decidedInMs = Math.max(...decidedAt.values()) - started;
    const serviceCpu = services.reduce((sum, instance, i) => sum + instanceCpuSeconds(instance.pid) - cpuBefore[i]!, 0);
    const machineCpu = machineBusySeconds() - machineBefore;
    const latencies = [...sentAt]
      .flatMap(([id, at]) => (decidedAt.has(id) ? [decidedAt.get(id)! - at] : []))
      .sort((a, b) => a - b);
    const outcome = (row: Record<string, unknown>) =>
      [row.status, row.failure_reason].filter((part) => typeof part === 'string' && part !== '').join(' ');
    const counts: Record<string, number> = {};
    for (const row of rows) counts[outcome(row)] = (counts[outcome(row)] ?? 0) + 1;
    const pending = counts.pending ?? 0;
    const deadLettered = Object.fromEntries(
      deadLetters.filter(([, entries]) => entries.length > 0).map(([name, entries]) => [name, entries.length]),
    );
    const reserved = counts.reserved ?? 0;
    const rejectedInsufficientStock = counts['rejected insufficient-stock'] ?? 0;
    const { quantityInStock, reservedQuantity } = await product(cluster, productId);
    const broken = [
      ...(accepted === buyers
        ? []
        : [
            `only ${accepted} of ${buyers} orders accepted: ${JSON.stringify(histogram(answers.filter((s) => s !== 202)))}`,
          ]),
      ...(rows.length === accepted
        ? []
        : [`${accepted} orders accepted but sales holds ${rows.length}: lost or doubled`]),
      ...(pending === 0 ? [] : [`${pending} orders still pending (neither reserved nor rejected) after the wait`]),
      ...(Object.keys(deadLettered).length === 0 ? [] : [`events dead-lettered: ${JSON.stringify(deadLettered)}`]),
      ...(reserved === units ? [] : [`${reserved} orders reserved, not ${units}`]),
      ...(rejectedInsufficientStock === buyers - units
        ? []
        : [
            `${rejectedInsufficientStock} rejected for insufficient-stock, not ${buyers - units}: ${JSON.stringify(counts)}`,
          ]),
      ...(reservedQuantity === reserved
        ? []
        : [`stock holds ${reservedQuantity} units for ${reserved} reserved orders`]),
      ...(reservedQuantity <= quantityInStock ? [] : [`oversold: ${reservedQuantity} held of ${quantityInStock}`]),
    ];
    const { reserved: _r, 'rejected insufficient-stock': _i, pending: _p, ...other } = counts;
    if (broken.length > 0)
      for (const instance of services)
        for (const line of instance.problems.slice(-20)) process.stderr.write(`${instance.name}: ${line}\n`);
    return {
      instances,
      buyers,
      units,
      accepted,
      retried: histogram(refusals),
      reserved,
      rejectedInsufficientStock,
      other,
      pending,
      deadLettered,
      decidedInMs: Math.round(decidedInMs),
      latencyMs: {
        p50: latencies.length ? Math.round(percentile(latencies, 0.5)) : Number.NaN,
        p99: latencies.length ? Math.round(percentile(latencies, 0.99)) : Number.NaN,
      },
      serviceCpuMsPerOrder: Number(((serviceCpu * 1000) / buyers).toFixed(2)),
      machineCpuMsPerOrder: Number(((machineCpu * 1000) / buyers).toFixed(2)),
      stock: { onHand: quantityInStock, reserved: reservedQuantity },
      broken,
    };
  } finally {
    await cluster.stop();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stopAll().finally(() => process.exit(130)));

await buildDist();
runBuilt();
const results: SaleResult[] = [];
for (const instances of topologies) {
  process.stderr.write(
    `flash sale: ${buyers} buyers for ${units} units on ${instances} stock and ${instances} sales…\n`,
  );
  results.push(await flashSale(instances));
}
const table = [
  '| Instances of stock and sales | Reserved / rejected (insufficient-stock) / still pending | Asked again (502, 503, 504) | Every order decided in | Order latency p50 / p99 | CPU per order: services / machine |',
  '| --- | --- | --- | --- | --- | --- |',
  ...results.map(
    (r) =>
      `| ${r.instances} + ${r.instances} | ${r.reserved} / ${r.rejectedInsufficientStock} / ${r.pending} | ${Object.values(r.retried).reduce((a, b) => a + b, 0)} | ${(r.decidedInMs / 1000).toFixed(2)} s | ${r.latencyMs.p50} / ${r.latencyMs.p99} ms | ${r.serviceCpuMsPerOrder} / ${r.machineCpuMsPerOrder} ms |`,
  ),
];
mkdirSync(values.out, { recursive: true });
writeFileSync(
  join(values.out, 'flash-sale.json'),
  `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`,
);
writeFileSync(join(values.out, 'flash-sale.md'), `${table.join('\n')}\n`);
process.stdout.write(`${table.join('\n')}\n`);
const broken = results.flatMap((r) => r.broken.map((b) => `${r.instances} + ${r.instances}: ${b}`));
for (const line of broken) process.stderr.write(`BROKEN ${line}\n`);
process.exit(broken.length > 0 ? 1 : 0);
