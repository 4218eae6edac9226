import Router from '@koa/router';
import { createHttpApp, problemsFor } from '@platform/http';
import { capturingLogger, inSpan, SpanKind, startTracing, type Tracing } from '@platform/runtime';
import { type ExportingReceiver, exportToOtlpReceiver, type ReceivedSpan } from '@platform/test-kit';
import { expect } from 'chai';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClientCredentials, HttpProductCatalog } from '../src';

const KIND = { server: 2, client: 3 } as const;

/**
 * Stock's product read on the house's Koa platform, on loopback: its server span continues the `traceparent` it is
 * sent, as the stock service's does. It answers 503 to the first `failures` requests.
 */
async function stockLike(failures = 0) {
  const received: IncomingHttpHeaders[] = [];
  const http = createHttpApp({ logger: capturingLogger('stock-like', []), toProblem: problemsFor<never>({}) });
  const router = new Router();
  router.get('/api/products', (ctx) => {
    received.push(ctx.req.headers);
    if (received.length <= failures) {
      ctx.status = 503;
      ctx.body = { code: 'BUSY' };
      return;
    }
    ctx.body = [{ id: 1, name: 'Pen', price: 0.1 }];
  });
  http.route(router);
  const server: Server = http.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An issuer on the house's Koa platform, on loopback: discovery, and a token endpoint giving every client a token. */
async function identityLike() {
  const http = createHttpApp({ logger: capturingLogger('identity-like', []), toProblem: problemsFor<never>({}) });
  const router = new Router();
  router.get('/.well-known/openid-configuration', (ctx) => {
    ctx.body = { issuer: url, token_endpoint: `${url}/token` };
  });
  router.post('/token', (ctx) => {
    ctx.body = { access_token: 'a-token', token_type: 'Bearer', expires_in: 300 };
  });
  http.route(router);
  const server: Server = http.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const fast = { attemptTimeoutMs: 2_000, backoffMs: 10 };

describe('HttpProductCatalog, traced (ADR 0021)', () => {
  let stock: Awaited<ReturnType<typeof stockLike>>;
  let catalog: HttpProductCatalog;
  afterEach(async () => {
    await catalog.close();
    await stock.close();
  });

  describe('with tracing off', () => {
    it('sends no trace context', async () => {
      stock = await stockLike();
      catalog = new HttpProductCatalog({ stockUrl: stock.url, resilience: fast });
      await catalog.quote([1]);
      expect(stock.received).to.have.length(1);
      expect(stock.received[0]).to.not.have.any.keys('traceparent', 'tracestate');
    });
  });

  describe('with an OTLP endpoint', () => {
    let receiver: ExportingReceiver;
    let tracing: Tracing;
    beforeEach(async () => {
      receiver = await exportToOtlpReceiver();
      tracing = await startTracing('sales-like');
    });
    afterEach(async () => {
      await tracing.shutdown();
      await receiver.restore();
    });

    /** Places an "order" (a server span) that reads the catalogue, and answers every span exported, flushed. */
    async function orderReadingTheCatalogue(): Promise<{ order: ReceivedSpan; spans: readonly ReceivedSpan[] }> {
      await inSpan('POST /api/orders', { kind: SpanKind.SERVER }, () => catalog.quote([1]));
      await tracing.shutdown();
      const order = receiver.spans.find((span) => span.name === 'POST /api/orders')!;
      return { order, spans: receiver.spans };
    }

    it("makes stock's server span for the catalogue read a child of sales' client span, in the order's trace", async () => {
      stock = await stockLike();
      catalog = new HttpProductCatalog({ stockUrl: stock.url, resilience: fast });
      const { order, spans } = await orderReadingTheCatalogue();

      const clients = spans.filter((span) => span.kind === KIND.client);
      expect(clients).to.have.length(1);
      const client = clients[0]!;
      expect(client).to.include({ name: 'GET', traceId: order.traceId, parentSpanId: order.spanId });
      expect(client.attributes).to.deep.include({
        'http.request.method': 'GET',
        'server.address': '127.0.0.1',
        'server.port': stock.port,
        'http.response.status_code': 200,
      });
      const served = spans.find((span) => span.name === 'GET /api/products')!;
      expect(served).to.include({ kind: KIND.server, traceId: order.traceId, parentSpanId: client.spanId });
      expect(stock.received[0]!.traceparent).to.equal(`00-${order.traceId}-${client.spanId}-01`);
    });

    it('opens a client span per attempt: a retried read is two, each the parent of the server span it reached', async () => {
      stock = await stockLike(1);
      catalog = new HttpProductCatalog({ stockUrl: stock.url, resilience: fast });
      const { order, spans } = await orderReadingTheCatalogue();

      const clients = spans.filter((span) => span.kind === KIND.client);
      expect(clients.map((span) => span.attributes['http.response.status_code'])).to.deep.equal([503, 200]);
      for (const client of clients) expect(client).to.include({ traceId: order.traceId, parentSpanId: order.spanId });
      const served = spans.filter((span) => span.name === 'GET /api/products');
      expect(served.map((span) => span.parentSpanId)).to.have.members(clients.map((span) => span.spanId));
    });

    it("makes the token sales fetches first (discovery, then the token endpoint) client spans of the order's trace too", async () => {
      const identity = await identityLike();
      try {
        stock = await stockLike();
        const credentials = new ClientCredentials({
          issuer: identity.url,
          clientId: 'sales',
          clientSecret: 'sales-secret',
          resource: 'urn:commerce:stock',
          scope: 'stock:read',
        });
        catalog = new HttpProductCatalog({ stockUrl: stock.url, credentials, resilience: fast });
        const { order, spans } = await orderReadingTheCatalogue();

        const clients = spans.filter((span) => span.kind === KIND.client);
        expect(clients.map((span) => span.name)).to.deep.equal(['GET', 'POST', 'GET']);
        for (const client of clients) expect(client).to.include({ traceId: order.traceId, parentSpanId: order.spanId });
        const parentOf = (name: string) => spans.find((span) => span.name === name)?.parentSpanId;
        expect(parentOf('GET /.well-known/openid-configuration')).to.equal(clients[0]!.spanId);
        expect(parentOf('POST /token')).to.equal(clients[1]!.spanId);
        expect(parentOf('GET /api/products')).to.equal(clients[2]!.spanId);
        expect(stock.received[0]!.authorization).to.equal('Bearer a-token');
      } finally {
        await identity.close();
      }
    });

    it('opens no span and sends no trace context for a read made outside any trace', async () => {
      stock = await stockLike();
      catalog = new HttpProductCatalog({ stockUrl: stock.url, resilience: fast });
      await catalog.quote([1]);
      await tracing.shutdown();
      expect(stock.received[0]).to.not.have.any.keys('traceparent', 'tracestate');
      expect(receiver.spans.filter((span) => span.kind === KIND.client)).to.deep.equal([]);
    });
  });
});
