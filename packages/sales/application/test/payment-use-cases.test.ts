import { type EventEnvelope, newEvent } from '@commerce/contracts';
import { Money } from '@commerce/shared-kernel';
import { timeOrderedId, UnavailableError } from '@platform/kernel';
import {
  GetOrder,
  HandlePaymentEvent,
  HandleStockEvent,
  PerformPaymentWork,
  PlaceOrder,
  RequestRefund,
  type StockEvent,
} from '@sales/application';
import {
  type Order,
  OrderRequest,
  type PaymentEvent,
  PaymentNotCapturedError,
  PaymentRefusedError,
  RefundExceedsCapturedError,
} from '@sales/domain';
import {
  FakePaymentProvider,
  FixedCatalog,
  type OpenSalesStore,
  type SalesStoreUnderTest,
} from '@sales/domain/testing';
import * as chai from 'chai';
import chaiAsPromised from 'chai-as-promised';
import { randomUUID } from 'node:crypto';
import { STORES } from './stores';

chai.use(chaiAsPromised);
const { expect } = chai;

const ADMIN = { kind: 'admin' } as const;
const RESERVATION = '3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55';

/**
 * The order's money on a store: the calls it owes the provider made outside any transaction and recorded after,
 * the provider's events applied once and guarded by the payment's state, refunds bounded by what was captured.
 */
function paymentUseCases(open: OpenSalesStore): void {
  let store: SalesStoreUnderTest;
  let provider: FakePaymentProvider;
  const now = new Date('2026-11-30T10:00:00Z');
  const clock = () => now;
  const idempotency = (key = randomUUID()) => ({ scope: 'refund', key, fingerprint: key });
  const useCases = () => ({
    place: new PlaceOrder(
      store.unitOfWork,
      new FixedCatalog([{ id: 1, name: 'Lamp', price: Money.fromDecimalString('19.99') }]),
      { clock, newId: () => timeOrderedId() },
    ),
    get: new GetOrder(store.orders),
    stock: new HandleStockEvent(store.unitOfWork, { clock, consumer: 'sales-service' }),
    work: new PerformPaymentWork(store.unitOfWork, provider, { clock, currency: 'EUR' }),
    events: new HandlePaymentEvent(store.unitOfWork, { clock }),
    refund: new RequestRefund(store.unitOfWork, { clock, newId: () => timeOrderedId() }),
  });
  const stock = <E extends StockEvent>(type: E['type'], data: E['data']) =>
    newEvent(type, data as never, now) as StockEvent;
  const order = (id: string) => useCases().get.execute(id, ADMIN);
  /** 3 lamps (59.97), held by stock. */
  const reserved = async (): Promise<Order> => {
    const { value } = await useCases().place.execute(
      'buyer-a',
      OrderRequest.create({ lines: [{ productId: 1, quantity: 3 }] }),
    );
    await useCases().stock.execute(
      stock('stock.reservation.confirmed', {
        orderId: value.id,
        reservationId: RESERVATION,
        expiresAt: now.toISOString(),
      }),
    );
    return order(value.id);
  };
  const event = (
    about: Order,
    kind: 'authorized' | 'canceled' | 'captured',
    cents = about.total.cents,
    orderId: string = about.id,
  ): PaymentEvent => {
    const base = { eventId: `evt_${randomUUID()}`, occurredAt: now, intentId: about.payment!.intentId, orderId };
    if (kind === 'canceled') return { kind, ...base };
    return { kind, ...base, amount: cents, currency: 'EUR' };
  };
  const paid = async () => {
    const held = await reserved();
    await useCases().work.execute(held.id);
    await useCases().events.execute(event(await order(held.id), 'authorized'));
    return order(held.id);
  };
  const captured = async () => {
    const o = await paid();
    await useCases().stock.execute(
      stock('stock.shipment.created', {
        shipmentId: randomUUID(),
        orderId: o.id,
        lines: [{ productId: 1, locationId: 1, quantity: 1 }],
        carrier: null,
        trackingNumber: null,
      }),
    );
    expect(await useCases().work.execute(o.id)).to.equal('capture');
    return order(o.id);
  };
  const outbox = async (): Promise<string[]> => {
    const claimed = await store.outbox.claim(1000, 60_000, Date.now());
    await store.outbox.markPublished(
      claimed.map((m) => m.id),
      Date.now(),
    );
    return claimed.map((m) => (JSON.parse(m.payload) as EventEnvelope).type);
  };

  before(async function () {
    store = await open(this);
  });
  beforeEach(async () => {
    provider = new FakePaymentProvider();
    await store.reset();
  });
  after(async () => store?.close());

  it('asks for the authorisation of a held order once, and its row is due until it has it', async () => {
    const held = await reserved();
    expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(now, 60_000, 10))).to.deep.equal([held.id]);
    expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(now, 60_000, 10)), 'leased').to.deep.equal([]);
    expect(await useCases().work.execute(held.id)).to.equal('authorise');
    expect(await useCases().work.execute(held.id)).to.equal('none');
    expect(provider.calls).to.deep.equal([{ kind: 'authorise', idempotencyKey: `authorise-${held.id}` }]);
    const shown = await order(held.id);
    expect(shown.payment).to.deep.include({
      status: 'requires_payment_method',
      intentId: `pi_${held.id}`,
      currency: 'EUR',
    });
    expect(shown.payment!.amount.toString()).to.equal('59.97');
    const later = new Date(now.getTime() + 120_000);
    expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(later, 60_000, 10))).to.deep.equal([]);
  });

  it('records nothing when the provider cannot be reached, and the call made again has one effect', async () => {
    const held = await reserved();
    provider.failNext(new UnavailableError('PAYMENTS_UNAVAILABLE', 'down'));
    await expect(useCases().work.execute(held.id)).to.be.rejectedWith(UnavailableError);
    expect(await order(held.id)).not.to.have.property('payment');
    await store.unitOfWork.run((tx) => tx.orders.deferPaymentWork(held.id, new Date(now.getTime() + 5_000)));
    expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(now, 60_000, 10)), 'deferred').to.deep.equal(
      [],
    );
    const retry = new Date(now.getTime() + 5_000);
    expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(retry, 60_000, 10))).to.deep.equal([held.id]);
    expect(await useCases().work.execute(held.id)).to.equal('authorise');
    expect((await order(held.id)).payment).to.include({ status: 'requires_payment_method' });
  });

  it('records a capture the provider refuses for good on the payment, and owes it no more; its row is due no more', async () => {
    const o = await paid();
    await useCases().stock.execute(
      stock('stock.shipment.created', {
        shipmentId: randomUUID(),
        orderId: o.id,
        lines: [{ productId: 1, locationId: 1, quantity: 1 }],
        carrier: null,
        trackingNumber: null,
      }),
    );
    const reason = 'This PaymentIntent could not be captured because it has a status of canceled.';
    provider.failNext(new PaymentRefusedError('unexpected_state', reason));
    expect(await useCases().work.execute(o.id)).to.deep.equal({ refused: 'capture', reason });
    const refused = await order(o.id);
    expect(refused).to.include({ status: 'partially_shipped' });
    expect(refused.payment).to.deep.include({ status: 'authorized', lastError: reason, refusedCall: 'capture' });
    expect(refused.paymentWork()).to.equal(undefined);
    expect(await useCases().work.execute(o.id)).to.equal('none');
    expect(provider.calls.filter((call) => call.kind === 'capture')).to.deep.equal([]);
    const later = new Date(now.getTime() + 120_000);
    expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(later, 60_000, 10))).to.deep.equal([]);
  });

  it('keeps owing an authorisation the provider refuses (there is no payment to record it on)', async () => {
    const held = await reserved();
    provider.failNext(new PaymentRefusedError('invalid', 'Amount must be at least 50'));
    await expect(useCases().work.execute(held.id)).to.be.rejectedWith(PaymentRefusedError);
    expect((await order(held.id)).paymentWork()).to.deep.equal({ kind: 'authorise' });
  });

  it('is paid once, by the authorisation of its total, however often and however late the provider says so', async () => {
    const held = await reserved();
    await useCases().work.execute(held.id);
    await outbox();
    const authorized = event(await order(held.id), 'authorized');
    expect(await useCases().events.execute(authorized)).to.deep.equal({ outcome: 'applied' });
    expect(await useCases().events.execute(authorized)).to.deep.equal({ outcome: 'duplicate' });
    expect(await useCases().events.execute({ ...authorized, eventId: 'evt_again' })).to.deep.equal({
      outcome: 'unchanged',
    });
    expect(await order(held.id)).to.include({ status: 'paid' });
    expect(await outbox()).to.deep.equal(['sales.order.paid']);
    const stranger = event(await order(held.id), 'authorized', held.total.cents, randomUUID());
    expect(await useCases().events.execute(stranger)).to.deep.equal({
      outcome: 'unknown-order',
    });
    expect(
      await useCases().events.execute({
        kind: 'other',
        eventId: 'evt_y',
        occurredAt: now,
        providerType: 'charge.succeeded',
      }),
    ).to.deep.equal({ outcome: 'ignored' });
  });

  it('gives back an authorisation of another amount, with a warning, and leaves the order unpaid', async () => {
    const held = await reserved();
    await useCases().work.execute(held.id);
    const result = await useCases().events.execute(event(await order(held.id), 'authorized', 100));
    expect(result.outcome).to.equal('applied');
    expect(result.warning).to.match(/authorised 1\.00 EUR, not the order's total 59\.97 EUR/);
    expect(await order(held.id)).to.include({ status: 'reserved' });
    expect(await useCases().work.execute(held.id)).to.equal('cancel');
    expect(provider.calls.map((c) => c.kind)).to.deep.equal(['authorise', 'cancel']);
    expect((await order(held.id)).payment).to.include({ status: 'canceled' });
  });

  it('captures at the first shipment and cancels the authorisation of an order cancelled before it', async () => {
    const shipped = await captured();
    expect(shipped.payment).to.include({ status: 'captured' });
    expect(shipped.payment!.capturedAmount.toString()).to.equal('59.97');
    expect(provider.calls.at(-1)).to.deep.equal({ kind: 'capture', idempotencyKey: `capture-${shipped.id}` });

    const cancelled = await paid();
    await store.unitOfWork.run(async (tx) => {
      const current = (await tx.orders.findById(cancelled.id, { lock: true }))!;
      await tx.orders.save(current.cancel(now).order, current.version);
    });
    expect(await useCases().work.execute(cancelled.id)).to.equal('cancel');
    expect(await order(cancelled.id))
      .to.deep.include({ status: 'cancelled' })
      .and.not.have.property('paymentToRelease');
    expect((await order(cancelled.id)).payment).to.include({ status: 'canceled' });
  });

  it('gives back money authorised for an order whose hold expired', async () => {
    const held = await reserved();
    await useCases().work.execute(held.id);
    const authorising = await order(held.id);
    await useCases().stock.execute(
      stock('stock.reservation.expired', { orderId: held.id, reservationId: RESERVATION }),
    );
    // The provider's authorisation crossed sales' cancel: the money is held for an expired order.
    expect((await useCases().events.execute(event(authorising, 'authorized'))).warning).to.match(/expired/);
    expect(await order(held.id)).to.include({ status: 'expired', paymentToRelease: true });
    expect(await useCases().work.execute(held.id)).to.equal('cancel');
    expect(await useCases().events.execute(event(authorising, 'canceled'))).to.deep.equal({ outcome: 'unchanged' });
    expect((await order(held.id)).payment).to.include({ status: 'canceled' });
  });

  it('refuses a refund before capture, and one beyond what was captured', async () => {
    const unpaid = await paid();
    await expect(useCases().refund.execute(unpaid.id, Money.fromCents(100), 'r', idempotency())).to.be.rejectedWith(
      PaymentNotCapturedError,
    );
    const shipped = await captured();
    await expect(
      useCases().refund.execute(shipped.id, Money.fromDecimalString('59.98'), 'r', idempotency()),
    ).to.be.rejectedWith(RefundExceedsCapturedError);
  });

  it('never refunds more than was captured, however many requests arrive at once', async () => {
    const shipped = await captured();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        useCases().refund.execute(shipped.id, Money.fromDecimalString('5.00'), 'twenty at once', idempotency()),
      ),
    );
    const made = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(made).to.have.length(11);
    for (const r of refused) expect(r.reason).to.be.instanceOf(RefundExceedsCapturedError);
    const after = await order(shipped.id);
    expect(after.refunds).to.have.length(11);
    expect(after.refunds.reduce((sum, r) => sum + r.amount.cents, 0)).to.equal(5500);
  });

  it('answers a repeated refund request with the refund it made, sends it once, and settles it by the provider', async () => {
    const shipped = await captured();
    const key = idempotency();
    const first = await useCases().refund.execute(shipped.id, Money.fromDecimalString('10.00'), 'broken', key);
    const again = await useCases().refund.execute(shipped.id, Money.fromDecimalString('10.00'), 'broken', key);
    expect(again).to.deep.equal({ value: first.value, replayed: true });
    const early = {
      kind: 'refund_updated' as const,
      eventId: 'evt_refund',
      occurredAt: now,
      intentId: shipped.payment!.intentId,
      orderId: shipped.id,
      refundId: 're_1',
      amount: 1000,
      currency: 'EUR',
      status: 'succeeded' as const,
    };
    await expect(useCases().events.execute(early), 'before sales knows re_1').to.be.rejectedWith(UnavailableError);
    expect(await useCases().work.execute(shipped.id)).to.equal('refund');
    expect(await useCases().work.execute(shipped.id)).to.equal('none');
    expect(provider.calls.filter((c) => c.kind === 'refund')).to.deep.equal([
      { kind: 'refund', idempotencyKey: `refund-${first.value.id}` },
    ]);
    expect(await useCases().events.execute(early)).to.deep.equal({ outcome: 'applied' });
    const after = await order(shipped.id);
    expect(after.refunds.map((r) => [r.id, r.status])).to.deep.equal([[first.value.id, 'succeeded']]);
    expect(after.payment!.refundedAmount.toString()).to.equal('10.00');
  });
}

for (const { name, open } of STORES) describe(`Payment use cases ${name}`, () => paymentUseCases(open));
