import { eventually, rabbitmqctl, restartRabbitmq } from '@platform/test-kit';
import { onInterrupt, sleep } from '../cluster';
import { call, count, DRILL_POLL_MS, key } from '../load';
import {
  byStatus,
  checkLedger,
  createProduct,
  type DrillResult,
  eventsDelivered,
  metric,
  product,
  runDrill,
  settled,
} from '../system';

export interface RabbitSize {
  readonly workers: number;
  readonly quietMs: number;
  readonly downMs: number;
}

export const FULL_RABBIT: RabbitSize = { workers: 4, quietMs: 5_000, downMs: 3_000 };

/**
 * Orders flow through the gateway while RabbitMQ is stopped and started
 * again (rabbitmqctl stop_app, start_app). The services keep taking orders
 * (events wait in their outboxes); once the broker is back every order
 * settles, nothing lost, and every outbox backlog drains to 0.
 */
export async function rabbitmqRestartDrill({
  workers,
  quietMs,
  downMs,
}: RabbitSize = FULL_RABBIT): Promise<DrillResult> {
  return runDrill('RabbitMQ restarted under load', {}, async ({ cluster, findings, requests, steady }) => {
    const lamp = await createProduct(cluster, 'Lamp', 1_000_000);
    const buyer = await cluster.token('buyer');
    const accepted: string[] = [];
    const load = steady(workers, 20, async () => {
      const answer = await call(`${cluster.url}/api/orders`, {
        method: 'POST',
        token: buyer,
        body: { lines: [{ productId: lamp, quantity: 1 }] },
        headers: { 'idempotency-key': key() },
      });
      if (count(requests, answer, (status) => status === 202) && 'status' in answer)
        accepted.push((answer.body as { id: string }).id);
    });
    await sleep(quietMs);
    const acceptedBefore = accepted.length;
    // An interrupted run starts the broker again.
    const restore = onInterrupt(() => rabbitmqctl('start_app').then(() => undefined));
    try {
      await restartRabbitmq(downMs);
    } finally {
      restore();
    }
    const back = Date.now();
    await sleep(quietMs);
    await load.stop();
    findings.figures['orders taken while the broker was away or reconnecting'] = accepted.length - acceptedBefore;
    findings.check('orders were taken while the broker was away', accepted.length > acceptedBefore);
    findings.check(
      'no order request failed: the broker is not on the request path',
      requests.failed === 0,
      requests.failures,
    );
    const { orders } = await settled(cluster, accepted.length, 120_000);
    const known = new Set(orders.map((order) => order.id));
    findings.check(
      `every accepted order (${accepted.length}) settled`,
      accepted.every((id) => known.has(id)) && byStatus(orders).reserved === accepted.length,
      byStatus(orders),
    );
    await eventually(
      'every outbox backlog to drain',
      60_000,
      async () => {
        const backlogs = await Promise.all(
          [...cluster.of('stock'), ...cluster.of('sales')].map((instance) =>
            metric(instance, 'messaging_outbox_backlog'),
          ),
        );
        return backlogs.every((backlog) => backlog === 0);
      },
      DRILL_POLL_MS,
    );
    const drained = Date.now() - back;
    findings.figures['backlogs drained'] = `${(drained / 1000).toFixed(1)} s after the broker was back`;
    const flows = await eventsDelivered(cluster, 60_000);
    for (const [service, flow] of Object.entries(flows)) {
      findings.check(
        `every event ${service} wrote (${flow.written}) was published and is in its consumer's inbox: none lost`,
        flow.unpublished === 0 && flow.consumed === flow.written,
        flow,
      );
    }
    findings.check(
      'stock holds what the reserved orders hold',
      (await product(cluster, lamp)).reservedQuantity === accepted.length,
    );
    await checkLedger(findings, cluster, lamp);
    return drained;
  });
}
