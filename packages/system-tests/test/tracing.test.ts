import {
  createScratchVhost,
  eventually,
  type OtlpReceiver,
  type ReceivedSpan,
  type ScratchVhost,
  startOtlpReceiver,
} from '@platform/test-kit';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonAnswers, runReadmeWalkthrough, startWholeSystem } from './support';

const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** The one span of `trace` that `matches`, failing with what the trace holds when there is none or more than one. */
function only(trace: readonly ReceivedSpan[], what: string, matches: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = trace.filter(matches);
  const holds = trace.map((span) => `${span.service}: ${span.name}`).join('; ');
  expect(found, `${what} in a trace holding ${holds}`).to.have.length(1);
  return found[0]!;
}

describe('tracing across the system (start:system with OTEL_EXPORTER_OTLP_ENDPOINT)', function () {
  this.timeout(180_000);
  let vhost: ScratchVhost;
  let data: string;
  let receiver: OtlpReceiver;
  before(async function () {
    vhost = await createScratchVhost(this);
    data = mkdtempSync(join(tmpdir(), 'system-traces-'));
    receiver = await startOtlpReceiver();
  });
  after(async () => {
    await vhost?.drop();
    await receiver?.close();
    rmSync(data, { recursive: true, force: true });
  });

  it("holds an order placed through the gateway in one trace: the gateway's spans, sales', its read of stock's catalogue, the relay's publish, stock's consume and sales' consume of the confirmation, each under its parent", async () => {
    const {
      process: system,
      gateway,
      ports,
    } = await startWholeSystem({
      AMQP_URL: vhost.url,
      DATA_DIR: data,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Exported within a tenth of a second rather than five, so the test need not stop the system to see its spans.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const stdout = await runReadmeWalkthrough(gateway, data, { payments: `http://localhost:${ports.PAYMENTS_PORT}` });
      expect(jsonAnswers(stdout)[0]).to.include({ status: 'reserved' });

      const orderPlaced = (span: ReceivedSpan) =>
        span.service === 'gateway' && span.kind === KIND.server && span.name.startsWith('POST /api/orders');
      const trace = await eventually("the order confirmation consumed by sales, in the order's trace", 30_000, () => {
        const root = receiver.spans.find(orderPlaced);
        const spans = root ? receiver.spans.filter((span) => span.traceId === root.traceId) : [];
        const confirmed = spans.some(
          (span) => span.service === 'sales-service' && span.name === 'consume stock.reservation.confirmed',
        );
        return confirmed && spans;
      });

      const gatewayServer = only(trace, "the gateway's server span", orderPlaced);
      expect(gatewayServer.parentSpanId).to.equal('');
      const gatewayClient = only(
        trace,
        "the gateway's client span",
        (s) => s.service === 'gateway' && s.kind === KIND.client,
      );
      expect(gatewayClient.parentSpanId).to.equal(gatewayServer.spanId);
      const salesServer = only(
        trace,
        "sales' server span",
        (s) => s.service === 'sales-service' && s.name === 'POST /api/orders',
      );
      expect(salesServer).to.include({ kind: KIND.server, parentSpanId: gatewayClient.spanId });
      const placedWrite = only(trace, "sales' outbox write", (s) => s.name === 'outbox write sales.order.placed');
      expect(placedWrite.service).to.equal('sales-service');
      const placedPublish = only(trace, "sales' relay's publish", (s) => s.name === 'publish sales.order.placed');
      expect(placedPublish).to.include({
        service: 'sales-service',
        kind: KIND.producer,
        parentSpanId: placedWrite.spanId,
      });
      const stockConsume = only(trace, "stock's consume", (s) => s.name === 'consume sales.order.placed');
      expect(stockConsume).to.include({
        service: 'stock-service',
        kind: KIND.consumer,
        parentSpanId: placedPublish.spanId,
      });
      const confirmedWrite = only(
        trace,
        "stock's outbox write",
        (s) => s.name === 'outbox write stock.reservation.confirmed',
      );
      const confirmedPublish = only(trace, "stock's publish", (s) => s.name === 'publish stock.reservation.confirmed');
      expect(confirmedPublish).to.include({ service: 'stock-service', parentSpanId: confirmedWrite.spanId });
      const salesConsume = only(trace, "sales' consume", (s) => s.name === 'consume stock.reservation.confirmed');
      expect(salesConsume).to.include({
        service: 'sales-service',
        kind: KIND.consumer,
        parentSpanId: confirmedPublish.spanId,
      });

      // The writes sit inside the work that caused them: a request's span, or a consume's.
      const byId = new Map(trace.map((span) => [span.spanId, span]));
      const ancestors = (span: ReceivedSpan) => {
        const found: ReceivedSpan[] = [];
        for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) found.push(at);
        return found;
      };
      // Sales' read of stock's catalogue is a client span of its request, and stock's span for the read is its child.
      const catalogueRead = only(
        trace,
        "stock's server span for sales' catalogue read",
        (s) => s.service === 'stock-service' && s.kind === KIND.server && s.name === 'GET /api/products',
      );
      const catalogueClient = byId.get(catalogueRead.parentSpanId);
      expect(catalogueClient, "the catalogue read's parent").to.include({
        service: 'sales-service',
        kind: KIND.client,
        name: 'GET',
      });
      expect(ancestors(catalogueClient!)).to.include(salesServer);
      expect(ancestors(placedWrite)).to.include(salesServer);
      expect(ancestors(confirmedWrite)).to.include(stockConsume);
      // Statements are spans too, in the trace of the work that ran them.
      expect(
        trace.some((s) => s.service === 'stock-service' && s.kind === KIND.client && s.name.startsWith('INSERT')),
      ).to.equal(true);
    } finally {
      await system.stop('SIGTERM');
    }
  });
});
