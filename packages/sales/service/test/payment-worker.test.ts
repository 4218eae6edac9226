import { UnavailableError } from '@platform/kernel';
import { capturingLogger } from '@platform/runtime';
import { eventually } from '@platform/test-kit';
import { PerformPaymentWork } from '@sales/application';
import {
  type Authorisation,
  type AuthorisationRequest,
  type Capture,
  type CaptureRequest,
  type Order,
  orderFromSnapshot,
  PaymentRefusedError,
} from '@sales/domain';
import { FakePaymentProvider } from '@sales/domain/testing';
import { InMemorySalesStore } from '@sales/persistence-memory';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { paymentWorker } from '../src/payment-worker';

/** The provider down for the first `unavailable` authorisations, and refusing every capture: the worker's two cases. */
class TroubledProvider extends FakePaymentProvider {
  unavailable = 0;
  captureAttempts = 0;

  override createAuthorisation(request: AuthorisationRequest): Promise<Authorisation> {
    if (this.unavailable-- > 0)
      return Promise.reject(new UnavailableError('PAYMENTS_UNAVAILABLE', 'connect ECONNREFUSED'));
    return super.createAuthorisation(request);
  }

  override capture(_request: CaptureRequest): Promise<Capture> {
    this.captureAttempts++;
    return Promise.reject(
      new PaymentRefusedError(
        'unexpected_state',
        'This PaymentIntent could not be captured because it has a status of canceled.',
      ),
    );
  }
}

/**
 * The payment worker on a store in memory, its clock in the test's hands: a provider that cannot be reached is tried
 * again later, each time twice as late up to a minute, until it answers; a call it refuses for good is recorded, said
 * once, counted, and not made again.
 */
describe('The payment worker', function () {
  this.timeout(20_000);
  const t0 = new Date('2026-11-30T10:00:00Z');
  let now: Date;
  let store: InMemorySalesStore;
  let provider: TroubledProvider;
  let logs: Record<string, unknown>[];
  let refused: string[];
  let worker: { stop(): Promise<void> } | undefined;

  const read = async (id: string) => (await store.orders.findById(id))!;
  /** An order of two lamps (19.99 each) stock holds, as the worker finds it. */
  const held = (): Order =>
    orderFromSnapshot({
      id: randomUUID(),
      buyer: 'buyer-a',
      status: 'reserved',
      lines: [{ productId: 1, name: 'Lamp', unitPriceCents: 1999, quantity: 2 }],
      reservationId: randomUUID(),
      reservationExpiresAt: new Date(t0.getTime() + 900_000).toISOString(),
      createdAt: t0.toISOString(),
      updatedAt: t0.toISOString(),
      version: 2,
    });
  const add = (order: Order) => store.unitOfWork.run((tx) => tx.orders.add(order));
  const start = () => {
    worker = paymentWorker({
      unitOfWork: store.unitOfWork,
      performPaymentWork: new PerformPaymentWork(store.unitOfWork, provider, { clock: () => now, currency: 'EUR' }),
      clock: () => now,
      logger: capturingLogger('sales-service', logs, 'warn'),
      pollMs: 5,
      refusals: { count: (call) => refused.push(call) },
    });
  };
  const warnings = (message: string) => logs.filter((line) => String(line.message).startsWith(message));

  beforeEach(() => {
    now = t0;
    store = new InMemorySalesStore({ idempotencyTtlMs: 86_400_000 });
    provider = new TroubledProvider();
    logs = [];
    refused = [];
  });
  afterEach(async () => worker?.stop());

  it('tries a provider it cannot reach again, each time twice as late up to a minute, until it answers', async () => {
    const order = held();
    await add(order);
    provider.unavailable = 8;
    start();
    const backoffs = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000];
    for (const [i, retryInMs] of backoffs.entries()) {
      const failed = await eventually(`attempt ${i + 1}`, 10_000, async () => {
        const lines = warnings('a call to the payment provider failed');
        return lines.length === i + 1 && lines[i];
      });
      expect(failed).to.include({ orderId: order.id, attempts: i + 1, retryInMs });
      // Not due before its backoff has passed: a claim a moment earlier finds nothing (and leases nothing).
      const early = new Date(now.getTime() + retryInMs - 1);
      expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(early, 60_000, 10))).to.deep.equal([]);
      now = new Date(now.getTime() + retryInMs);
    }
    const authorised = await eventually('the authorisation', 10_000, async () => (await read(order.id)).payment);
    expect(authorised).to.include({ status: 'requires_payment_method', intentId: `pi_${order.id}` });
    expect(warnings('a call to the payment provider failed')).to.have.length(8);
    expect(refused).to.deep.equal([]);
  });

  it('records a capture the provider refuses for good, says so once, counts it, and never makes it again', async () => {
    const reserved = held();
    const at = t0;
    const authorisation = { intentId: `pi_${reserved.id}`, clientSecret: 'secret', status: 'requires_payment_method' };
    const shipped = reserved
      .authorisationCreated('stripe', authorisation as Authorisation, 'EUR', at)
      .order.paymentAuthorized(`pi_${reserved.id}`, reserved.total, 'EUR', at, at)
      .order.shipmentCreated([{ productId: 1, quantity: 1 }], at).order;
    expect(shipped.paymentWork()).to.deep.equal({ kind: 'capture' });
    await add(shipped);
    start();
    const recorded = await eventually('the refusal recorded', 10_000, async () => {
      const order = await read(shipped.id);
      return order.payment?.refusedCall && order;
    });
    expect(recorded).to.include({ status: 'partially_shipped' });
    expect(recorded.payment).to.include({
      status: 'authorized',
      refusedCall: 'capture',
      lastError: 'This PaymentIntent could not be captured because it has a status of canceled.',
    });
    expect(recorded.payment!.capturedAmount.toString()).to.equal('0.00');
    // Owed no more: not due now nor ever, so no later round takes it again.
    expect(recorded.paymentWork()).to.equal(undefined);
    const muchLater = new Date(t0.getTime() + 365 * 86_400_000);
    expect(await store.unitOfWork.run((tx) => tx.orders.claimPaymentWork(muchLater, 60_000, 10))).to.deep.equal([]);
    await worker!.stop();
    expect(provider.captureAttempts).to.equal(1);
    expect(refused).to.deep.equal(['capture']);
    const said = warnings('the payment provider refused a call for good');
    expect(said).to.have.length(1);
    expect(said[0]).to.include({ orderId: shipped.id, call: 'capture', level: 'warn' });
    expect(warnings('a call to the payment provider failed')).to.deep.equal([]);
  });
});
