import { UnavailableError } from '@platform/kernel';
import { IN_THIS_PROCESS } from '@platform/test-kit';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '@stock/service';
import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpProductCatalog } from '../src';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A stand-in for stock on loopback whose behaviour each test sets, counting the requests it gets. */
async function fakeStock(): Promise<{
  url: string;
  requests: IncomingMessage[];
  answer: (handler: Handler) => void;
  close: () => Promise<void>;
}> {
  let handler: Handler = (_req, res) => res.end('[]');
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer: (next) => (handler = next),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const json =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** Short enough for the timeout test, long enough that a busy machine never times out an answer that was on its way. */
const fast = { attemptTimeoutMs: 1_000, backoffMs: 10, halfOpenAfterMs: 400 };

describe('HttpProductCatalog (sales → stock over HTTP)', () => {
  let stock: Awaited<ReturnType<typeof fakeStock>>;
  let catalog: HttpProductCatalog;

  beforeEach(async () => {
    stock = await fakeStock();
    catalog = new HttpProductCatalog({ stockUrl: stock.url, resilience: fast });
  });
  afterEach(async () => {
    await catalog.close();
    await stock.close();
  });

  it('quotes the products stock has, in one batch read, with exact prices', async () => {
    stock.answer(
      json(200, [
        { id: 1, name: 'Pen', price: 0.1, quantityInStock: 5 },
        { id: 3, name: 'Ink', price: 19.99 },
      ]),
    );
    const quoted = await catalog.quote([3, 1, 2, 3]);
    expect(stock.requests.map((r) => r.url)).to.deep.equal(['/api/products?ids=3,1,2']);
    expect(quoted.map(({ id, name, price }) => ({ id, name, cents: price.cents }))).to.deep.equal([
      { id: 1, name: 'Pen', cents: 10 },
      { id: 3, name: 'Ink', cents: 1999 },
    ]);
  });

  it('splits more than a hundred ids into batches of a hundred', async () => {
    stock.answer(json(200, []));
    await catalog.quote(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(
      stock.requests.map((r) => new URL(r.url!, 'http://x').searchParams.get('ids')!.split(',').length),
    ).to.deep.equal([100, 100, 50]);
  });

  it('keeps the path of the base URL (stock behind a gateway)', async () => {
    await catalog.close();
    catalog = new HttpProductCatalog({ stockUrl: `${stock.url}/stock/`, resilience: fast });
    await catalog.quote([1]);
    expect(stock.requests[0]!.url).to.equal('/stock/api/products?ids=1');
  });

  it('retries a 5xx twice, then answers STOCK_UNAVAILABLE', async () => {
    stock.answer(json(500, { code: 'INTERNAL_ERROR' }));
    const error = await catalog.quote([1]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnavailableError).and.include({ code: 'STOCK_UNAVAILABLE' });
    expect(stock.requests).to.have.length(3);
  });

  it('succeeds when a retry does', async () => {
    let calls = 0;
    stock.answer((req, res) =>
      ++calls === 1 ? json(503, {})(req, res) : json(200, [{ id: 1, name: 'Pen', price: 1 }])(req, res),
    );
    expect(await catalog.quote([1])).to.have.length(1);
    expect(calls).to.equal(2);
  });

  it('gives up on an attempt at its timeout, and aborts the request', async () => {
    stock.answer(() => {}); // never answers
    const started = Date.now();
    const error = await catalog.quote([1]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnavailableError);
    expect((error as Error).message).to.match(/did not answer within 1000 ms/);
    expect(stock.requests).to.have.length(3);
    expect(Date.now() - started).to.be.below(10_000); // bounded, not a timing claim: three attempts of 1 s each
  });

  it('starts an attempt, and its timeout, only once a connection is free: a burst waits its turn and every call succeeds', async () => {
    const burst = new HttpProductCatalog({
      stockUrl: stock.url,
      resilience: { ...fast, attemptTimeoutMs: 1_000, connections: 2 },
    });
    let atOnce = 0;
    let most = 0;
    stock.answer((_req, res) => {
      most = Math.max(most, ++atOnce);
      setTimeout(() => {
        atOnce--;
        json(200, [{ id: 1, name: 'Pen', price: 1 }])(_req, res);
      }, 100);
    });
    try {
      // 40 calls of 100 ms on 2 connections: the last waits about 2 s, twice the attempt's timeout.
      const quotes = await Promise.all(Array.from({ length: 40 }, () => burst.quote([1])));
      expect(quotes.every((quote) => quote.length === 1)).to.equal(true);
      expect(stock.requests, 'one request per call: none timed out and went again').to.have.length(40);
      expect(most, 'never more requests at once than connections').to.equal(2);
    } finally {
      await burst.close();
    }
  });

  it('refuses a call at once with STOCK_UNAVAILABLE when as many as `waiting` already wait', async () => {
    const narrow = new HttpProductCatalog({ stockUrl: stock.url, resilience: { ...fast, connections: 1, waiting: 1 } });
    stock.answer((_req, res) => setTimeout(() => json(200, [])(_req, res), 100));
    try {
      const outcomes = await Promise.allSettled([narrow.quote([1]), narrow.quote([1]), narrow.quote([1])]);
      expect(outcomes.map((outcome) => outcome.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected']);
      const refused = (outcomes[2] as PromiseRejectedResult).reason as UnavailableError;
      expect(refused)
        .to.be.instanceOf(UnavailableError)
        .and.include({ code: 'STOCK_UNAVAILABLE', retryAfterSeconds: 1 });
      expect(refused.message).to.match(/Too many calls are waiting/);
      expect(stock.requests).to.have.length(2);
    } finally {
      await narrow.close();
    }
  });

  it('opens the breaker after five failed attempts: the next call fails at once, without a request, with Retry-After', async () => {
    stock.answer(json(500, {}));
    await catalog.quote([1]).catch(() => {}); // attempts 1-3
    await catalog.quote([1]).catch(() => {}); // attempts 4-5, then the breaker is open
    const before = stock.requests.length;
    expect(before).to.equal(5);
    const error = (await catalog.quote([1]).catch((e: unknown) => e)) as UnavailableError;
    expect(error).to.be.instanceOf(UnavailableError).and.include({ code: 'STOCK_UNAVAILABLE', retryAfterSeconds: 1 });
    expect(error.message).to.match(/not answering/);
    expect(stock.requests.length).to.equal(before);
  });

  it('lets one call through once half-open, and closes again when it succeeds', async () => {
    stock.answer(json(500, {}));
    await catalog.quote([1]).catch(() => {});
    await catalog.quote([1]).catch(() => {});
    stock.answer(json(200, [{ id: 1, name: 'Pen', price: 1 }]));
    await new Promise((resolve) => setTimeout(resolve, fast.halfOpenAfterMs + 50));
    expect(await catalog.quote([1])).to.have.length(1);
    expect(await catalog.quote([1])).to.have.length(1);
  });

  it('counts a connection refused as a failure (stock is down)', async () => {
    await stock.close();
    const error = await catalog.quote([1]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnavailableError);
    expect((error as Error).message).to.match(/ECONNREFUSED/);
  });

  it('answers STOCK_UNAVAILABLE for a body it cannot read, never a 500', async () => {
    stock.answer(json(200, [{ id: 1, name: 'Pen', price: '1.00' }]));
    expect(await catalog.quote([1]).catch((e: unknown) => e)).to.be.instanceOf(UnavailableError);
    stock.answer((_req, res) => res.end('<html>'));
    expect(await catalog.quote([1]).catch((e: unknown) => e)).to.be.instanceOf(UnavailableError);
  });

  it('does not retry a 4xx: it names it', async () => {
    stock.answer(json(403, { code: 'FORBIDDEN', detail: 'insufficient scope' }));
    const error = await catalog.quote([1]).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnavailableError);
    expect((error as Error).message).to.match(/403 FORBIDDEN: insufficient scope/);
    expect(stock.requests).to.have.length(1);
  });

  it('sends a bearer token, and on a 401 drops it and tries once with a fresh one', async () => {
    const issued = ['old', 'new'];
    let current: string | undefined;
    const credentials = {
      token: async () => (current ??= issued.shift()!),
      invalidate: (token: string) => {
        if (token === current) current = undefined;
      },
    };
    await catalog.close();
    catalog = new HttpProductCatalog({ stockUrl: stock.url, credentials, resilience: fast });
    stock.answer((req, res) =>
      req.headers.authorization === 'Bearer new' ? json(200, [])(req, res) : json(401, {})(req, res),
    );
    expect(await catalog.quote([1])).to.deep.equal([]);
    expect(stock.requests.map((r) => r.headers.authorization)).to.deep.equal(['Bearer old', 'Bearer new']);
  });
});

describe('HttpProductCatalog against the stock service', () => {
  let service: RunningStockService;
  let catalog: HttpProductCatalog;

  before(async () => {
    service = await startStockService({
      ...DEFAULT_CONFIG,
      ...IN_THIS_PROCESS,
      logLevel: 'error',
    });
    catalog = new HttpProductCatalog({ stockUrl: service.url });
  });
  after(async () => {
    await catalog.close();
    await service.close();
  });

  it('quotes what the stock API serves', async () => {
    const created = await fetch(`${service.url}/api/products`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lamp', price: 12.3, quantityInStock: 4 }),
    }).then((r) => r.json() as Promise<{ id: number }>);
    const [lamp, ...rest] = await catalog.quote([created.id, 999_999]);
    expect(rest).to.deep.equal([]);
    expect({ id: lamp!.id, name: lamp!.name, price: lamp!.price.toNumber() }).to.deep.equal({
      id: created.id,
      name: 'Lamp',
      price: 12.3,
    });
  });
});
