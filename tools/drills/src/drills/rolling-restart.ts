import { eventually } from '@platform/test-kit';
import { sleep } from '../cluster';
import { call, count, DRILL_POLL_MS, key } from '../load';
import { checkLedger, createProduct, type DrillResult, runDrill, settled } from '../system';

export interface RollingSize {
  /** Client loops sending requests back to back through the gateway. */
  readonly workers: number;
  /** How long the load runs with everything up, before the first restart and after the last. */
  readonly quietMs: number;
}

export const FULL_ROLLING: RollingSize = { workers: 8, quietMs: 5_000 };

/**
 * A steady stream through the gateway (reads, restocks with an
 * Idempotency-Key, orders with an Idempotency-Key, reads of the orders)
 * while each stock and sales instance in turn gets SIGTERM and is started
 * again: no request may fail. The instance drains (readiness 503,
 * `Connection: close`) for SHUTDOWN_DELAY_MS; the gateway stops routing to it
 * and retries elsewhere what cannot apply twice.
 */
export async function rollingRestartDrill({ workers, quietMs }: RollingSize = FULL_ROLLING): Promise<DrillResult> {
  return runDrill('Rolling restart under load', {}, async ({ cluster, findings, requests, steady }) => {
    const lamp = await createProduct(cluster, 'Lamp', 1_000_000);
    const [writer, buyer] = [await cluster.token('stockWriter'), await cluster.token('buyer')];
    const placed: string[] = [];
    const load = steady(workers, 0, async (worker, i) => {
      switch (i % 4) {
        case 0:
          count(requests, await call(`${cluster.url}/api/products/${lamp}`, { token: writer }));
          break;
        case 1:
          count(
            requests,
            await call(`${cluster.url}/api/products/${lamp}/stock-adjustments`, {
              method: 'POST',
              token: writer,
              body: { delta: 1, reason: `restock ${worker}/${i}` },
              headers: { 'idempotency-key': key() },
            }),
          );
          break;
        case 2: {
          const answer = await call(`${cluster.url}/api/orders`, {
            method: 'POST',
            token: buyer,
            body: { lines: [{ productId: lamp, quantity: 1 }] },
            headers: { 'idempotency-key': key() },
          });
          if (count(requests, answer, (status) => status === 202) && 'status' in answer)
            placed.push((answer.body as { id: string }).id);
          break;
        }
        default: {
          const id = placed[placed.length - 1];
          if (id) count(requests, await call(`${cluster.url}/api/orders/${id}`, { token: buyer }));
        }
      }
    });
    await sleep(quietMs);
    const restarts: string[] = [];
    for (const instance of [...cluster.of('stock'), ...cluster.of('sales')]) {
      const stopped = Date.now();
      const code = await instance.stop('SIGTERM');
      await instance.start();
      // Ready again, and seen so by the gateway (it asks every 200 ms), before the next one goes.
      await eventually(`${instance.name} ready again`, 60_000, () => instance.ready(), DRILL_POLL_MS);
      await sleep(500);
      restarts.push(`${instance.name}: exit ${code}, back in ${((Date.now() - stopped) / 1000).toFixed(1)} s`);
      findings.check(`${instance.name} stopped cleanly on SIGTERM (exit 0)`, code === 0, code);
    }
    await sleep(quietMs);
    await load.stop();
    findings.figures.restarts = restarts.join('; ');
    findings.check(
      'no request failed while every service instance was restarted in turn',
      requests.failed === 0,
      requests.failures,
    );
    const started = Date.now();
    await settled(cluster, placed.length, 60_000);
    const converged = Date.now() - started;
    await checkLedger(findings, cluster, lamp);
    return converged;
  });
}
