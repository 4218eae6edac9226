import { newEvent } from '@commerce/contracts';
import { createScratchDatabase, type ScratchDatabase } from '@platform/test-kit';
import { AdjustStock, CommitForOrder, CreateProduct, ReserveForOrder } from '@stock/application';
import { DEFAULT_LOCATION_ID, StockAdjustment } from '@stock/domain';
import { aLocation, aProduct } from '@stock/domain/testing';
import { openStockDatabase, SqlUnitOfWork } from '@stock/persistence-sql';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { checkedFetch } from './checked-fetch';
import { type ServiceProcess, startProcess } from './process-support';
import { json } from './support';

const COMMITTED = 37;
const SHIPMENTS = 50;

/**
 * A paid order of 37 units, held at two locations, on one PostgreSQL database. Made in this process through the use
 * cases sales' events reach, before the services start.
 */
async function aPaidOrder(url: string) {
  const database = await openStockDatabase(url, { createDatabase: true });
  try {
    await database.migrate();
    const unitOfWork = new SqlUnitOfWork(database, { idempotencyTtlMs: 60_000 });
    const clock = () => new Date();
    const { value: product } = await new CreateProduct(unitOfWork, clock).execute(aProduct({ quantityInStock: 30 }));
    const second = await unitOfWork.run(async (tx) => {
      const location = await tx.locations.add(aLocation({ priority: 1 }));
      if (location === 'code-taken') throw new Error('The scratch database has a location already.');
      return location.id;
    });
    await new AdjustStock(unitOfWork, clock).execute(
      product.id,
      StockAdjustment.create({ delta: 20, locationId: second }),
    );
    const orderId = randomUUID();
    const settings = { clock, newId: randomUUID, defaultTtlSeconds: 900, consumer: 'stock-service' };
    await new ReserveForOrder(unitOfWork, settings).execute(
      newEvent('sales.order.placed', { orderId, lines: [{ productId: product.id, quantity: COMMITTED }] }),
    );
    await new CommitForOrder(unitOfWork, settings).execute(newEvent('sales.order.paid', { orderId }));
    return { productId: product.id, second, orderId };
  } finally {
    await database.close();
  }
}

/** How often a shipment a busy database refused with a 503 (nothing moved) is sent again, as a client would. */
const ATTEMPTS = 5;

/**
 * POSTs a shipment, again while the answer is 503 DATABASE_UNAVAILABLE: on a machine this busy a request may wait
 * longer than DB_ACQUIRE_TIMEOUT_MS for a pooled connection, and is then refused with nothing moved.
 */
async function shipOnce(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const response = await checkedFetch(url, init);
    if (response.status !== 503 || attempt === ATTEMPTS) return response;
    await response.body?.cancel();
  }
}

describe('two stock service processes on one PostgreSQL, racing shipments of one paid order', function () {
  this.timeout(120_000);
  let database: ScratchDatabase;
  let services: ServiceProcess[] = [];

  beforeEach(async function () {
    database = await createScratchDatabase(this);
  });
  afterEach(async () => {
    // Each stopped, bounded: SIGTERM, and SIGKILL for one still running after its grace period.
    await Promise.all(
      services.map(async (service) => {
        const killed = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
        await service.stop();
        clearTimeout(killed);
      }),
    );
    services = [];
    await database?.drop();
  });

  it('ship exactly the committed units, one unit at a time, and refuse every shipment after them', async () => {
    const { productId, second, orderId } = await aPaidOrder(database.url);
    services = [0, 1].map(() =>
      startProcess({ DATABASE_URL: database.url, RESERVATION_SWEEP_MS: '60000', SHUTDOWN_DELAY_MS: '0' }),
    );
    const urls = await Promise.all(services.map(async (service) => `http://127.0.0.1:${await service.port()}`));

    const answers = await Promise.all(
      Array.from({ length: SHIPMENTS }, (_, index) =>
        shipOnce(`${urls[index % 2]}/api/shipments`, json({ orderId, lines: [{ productId, quantity: 1 }] })),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(
      statuses.filter((status) => status === 201),
      statuses.join(' '),
    ).to.have.length(COMMITTED);
    expect(statuses.filter((status) => status === 409)).to.have.length(SHIPMENTS - COMMITTED);
    const codes = await Promise.all(
      answers.filter((a) => a.status === 409).map(async (a) => ((await a.json()) as { code: string }).code),
    );
    expect(new Set(codes)).to.satisfy((found: Set<string>) =>
      [...found].every((code) => code === 'SHIPMENT_EXCEEDS_COMMITTED' || code === 'ORDER_NOT_SHIPPABLE'),
    );

    const [url] = urls;
    const product = (await (await checkedFetch(`${url}/api/products/${productId}`)).json()) as Record<string, number>;
    expect(product).to.include({ quantityInStock: 50 - COMMITTED, committedQuantity: 0, reservedQuantity: 0 });
    const shipments = (await (await checkedFetch(`${url}/api/shipments?orderId=${orderId}`)).json()) as {
      lines: { locationId: number; quantity: number }[];
    }[];
    const shippedFrom = (locationId: number) =>
      shipments
        .flatMap((s) => s.lines)
        .filter((l) => l.locationId === locationId)
        .reduce((n, l) => n + l.quantity, 0);
    // Held by priority: all 30 of the default location, then 7 of the second.
    expect([shippedFrom(DEFAULT_LOCATION_ID), shippedFrom(second)]).to.deep.equal([30, 7]);
    const movements = (await (
      await checkedFetch(`${url}/api/products/${productId}/stock-movements?limit=1000`)
    ).json()) as {
      kind: string;
      quantityDelta: number;
    }[];
    const shipped = movements.filter((movement) => movement.kind === 'shipped');
    expect(shipped.reduce((sum, movement) => sum - movement.quantityDelta, 0)).to.equal(COMMITTED);
  });
});
