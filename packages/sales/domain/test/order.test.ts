import { ValidationError } from '@platform/kernel';
import { Money } from '@commerce/shared-kernel';
import { expect } from 'chai';
import {
  Order,
  OrderRequest,
  type OrderStatus,
  OrderStateConflictError,
  orderFromSnapshot,
  orderSnapshot,
  type Outcome,
  type PaymentStatus,
  RESERVATION_RELEASED,
  STOCK_UNANSWERED,
} from '../src';
import { paidThroughProvider, TEST_AUTHORISATION } from '../testing';

const at = new Date('2026-11-23T10:00:00Z');
const later = new Date('2026-11-23T10:05:00Z');
const STATUSES: OrderStatus[] = [
  'pending',
  'reserved',
  'paid',
  'partially_shipped',
  'shipped',
  'returned',
  'rejected',
  'cancelled',
  'expired',
  'unfulfilled',
];

/** How many of the fixture's 3 units each status has shipped and had returned, as stock's events left them. */
const UNITS: Partial<Record<OrderStatus, { shipped: number; returned: number }>> = {
  partially_shipped: { shipped: 1, returned: 0 },
  shipped: { shipped: 3, returned: 0 },
  returned: { shipped: 3, returned: 3 },
};

/** The payment of an order in each status, as the provider's events left it (none before stock held it). */
const PAYMENT: Partial<Record<OrderStatus, PaymentStatus>> = {
  reserved: 'requires_payment_method',
  paid: 'authorized',
  partially_shipped: 'captured',
  shipped: 'captured',
  returned: 'captured',
  cancelled: 'requires_payment_method',
  expired: 'requires_payment_method',
  unfulfilled: 'authorized',
};

/** An order of 3 lamps in `status`, holding reservation r-1 once stock confirmed it (not pending, not rejected). */
function orderIn(status: OrderStatus): Order {
  const placed = Order.place(
    '3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55',
    'buyer-a',
    [{ productId: 1, name: 'Lamp', unitPrice: Money.fromCents(1999), quantity: 3 }],
    at,
  );
  const { shipped = 0, returned = 0 } = { ...UNITS[status] };
  const payment = PAYMENT[status];
  return Order.restore({
    ...placed,
    status,
    ...(payment && {
      payment: {
        provider: 'stripe',
        intentId: TEST_AUTHORISATION.intentId,
        clientSecret: TEST_AUTHORISATION.clientSecret,
        status: payment,
        amount: placed.total,
        currency: 'EUR',
        capturedAmount: payment === 'captured' ? placed.total : Money.fromCents(0),
        refundedAmount: Money.fromCents(0),
      },
    }),
    ...(status !== 'pending' && status !== 'rejected' && { reservationId: 'r-1' }),
    lines: placed.lines.map((line) => ({ ...line, shippedQuantity: shipped, returnedQuantity: returned })),
  });
}

const lamps = (quantity: number) => [{ productId: 1, quantity }];

/** What each input does from each state: the next state, "same" (nothing happens), or "409" (a refused command). */
const MACHINE: Record<
  string,
  { input: (order: Order) => Outcome; from: Partial<Record<OrderStatus, OrderStatus | 'same' | '409'>> }
> = {
  cancel: {
    input: (o) => o.cancel(later),
    from: {
      pending: 'cancelled',
      reserved: 'cancelled',
      paid: 'cancelled',
      cancelled: 'same',
      partially_shipped: '409',
      shipped: '409',
      returned: '409',
      rejected: '409',
      expired: '409',
      unfulfilled: '409',
    },
  },
  // The provider's authorisation of the total pays a reserved order; an order that died keeps its status (and gives
  // the money back); one paid already, or without a payment, does not move.
  authorized: {
    input: (o) => o.paymentAuthorized(TEST_AUTHORISATION.intentId, Money.fromCents(5997), 'EUR', later, later),
    from: { reserved: 'paid', cancelled: 'cancelled', expired: 'expired' },
  },
  confirmed: { input: (o) => o.reservationConfirmed('r-1', later, later), from: { pending: 'reserved' } },
  rejected: {
    input: (o) => o.reservationRejected([{ productId: 1, requested: 3, available: 1 }], 'insufficient-stock', later),
    from: { pending: 'rejected' },
  },
  // Stock never answered an order placed by the deadline: sales decides it; anything else, stock decided already.
  'stock unanswered': { input: (o) => o.stockUnanswered(at, later), from: { pending: 'rejected' } },
  // Committing moves no order: a paid one waits to ship. A pending one, which the commit overtook, learns its hold.
  committed: { input: (o) => o.reservationCommitted('r-1', later), from: { pending: 'pending' } },
  commitFailed: { input: (o) => o.commitFailed('the hold had expired', later), from: { paid: 'unfulfilled' } },
  expired: { input: (o) => o.reservationExpired('r-1', later), from: { reserved: 'expired', pending: 'expired' } },
  released: {
    input: (o) => o.reservationReleased('r-1', later),
    from: { reserved: 'cancelled', pending: 'cancelled' },
  },
  // A cancelled order counts what stock shipped or took back anyway (a cancel racing the shipment), and stays so.
  'shipment of 1': {
    input: (o) => o.shipmentCreated(lamps(1), later),
    from: { paid: 'partially_shipped', partially_shipped: 'partially_shipped', cancelled: 'cancelled' },
  },
  'shipment of the rest': {
    input: (o) => o.shipmentCreated(lamps(3 - o.lines[0]!.shippedQuantity), later),
    from: { paid: 'shipped', partially_shipped: 'shipped', cancelled: 'cancelled' },
  },
  // Only the shipped order goes back to returned; a return that overtook its shipment is counted and waits for it.
  'return of 1': {
    input: (o) => o.returnReceived(lamps(1), later),
    from: { paid: 'paid', partially_shipped: 'partially_shipped', shipped: 'shipped', cancelled: 'cancelled' },
  },
  'return of every shipped unit': {
    input: (o) => o.returnReceived(lamps(Math.max(o.lines[0]!.shippedQuantity, 1)), later),
    from: { paid: 'paid', partially_shipped: 'partially_shipped', shipped: 'returned', cancelled: 'cancelled' },
  },
};

describe('an order', () => {
  it('is placed pending, each line priced exactly and the total their sum', () => {
    const order = Order.place(
      'o-1',
      'buyer-a',
      [
        { productId: 1, name: 'Lamp', unitPrice: Money.fromDecimalString('19.99'), quantity: 3 },
        { productId: 2, name: 'Chair', unitPrice: Money.fromDecimalString('0.10'), quantity: 7 },
      ],
      at,
    );
    expect(order).to.include({ status: 'pending', version: 1, buyer: 'buyer-a' });
    expect(order.lines.map((l) => l.lineTotal.toString())).to.deep.equal(['59.97', '0.70']);
    expect(order.total.toString()).to.equal('60.67');
  });

  for (const [name, { input, from }] of Object.entries(MACHINE)) {
    for (const status of STATUSES) {
      const expected = from[status] ?? 'same';
      it(`${name} from ${status}: ${expected === 'same' ? 'stays' : expected === '409' ? 'is refused (409)' : `→ ${expected}`}`, () => {
        const order = orderIn(status);
        if (expected === '409') {
          expect(() => input(order))
            .to.throw(OrderStateConflictError)
            .with.property('status', status);
          return;
        }
        const outcome = input(order);
        if (expected === 'same') {
          expect(outcome).to.deep.equal({ changed: false, order });
        } else {
          expect(outcome.changed).to.equal(true);
          expect(outcome.order).to.include({ status: expected, version: order.version + 1 });
          expect(outcome.order.updatedAt).to.equal(later);
        }
      });
    }
  }

  it('keeps what an event told it: the reservation, the shortages, why it failed', () => {
    expect(orderIn('pending').reservationConfirmed('r-1', later, later).order).to.include({
      reservationId: 'r-1',
      reservationExpiresAt: later,
    });
    expect(
      orderIn('pending').reservationRejected(
        [{ productId: 1, requested: 3, available: 1 }],
        'insufficient-stock',
        later,
      ).order.shortages,
    ).to.deep.equal([{ productId: 1, requested: 3, available: 1 }]);
    expect(orderIn('paid').commitFailed('the hold had expired', later).order.failureReason).to.equal(
      'the hold had expired',
    );
    expect(orderIn('reserved').reservationReleased('r-1', later).order).to.include({
      failureReason: RESERVATION_RELEASED,
      reservationId: 'r-1',
    });
    expect(orderIn('pending').reservationExpired('r-1', later).order).to.include({ reservationId: 'r-1' });
    expect(orderIn('pending').stockUnanswered(at, later).order).to.include({ failureReason: STOCK_UNANSWERED });
    const placedAfterTheDeadline = orderIn('pending');
    expect(placedAfterTheDeadline.stockUnanswered(new Date(at.getTime() - 1), later)).to.deep.equal({
      changed: false,
      order: placedAfterTheDeadline,
    });
  });

  it('keeps where stock holds each line: none until it confirms, then the allocations its confirmation names', () => {
    const pending = orderIn('pending');
    expect(pending.lines.map((line) => line.allocations)).to.deep.equal([[]]);
    const held = [
      {
        productId: 1,
        allocations: [
          { locationId: 1, quantity: 1 },
          { locationId: 4, quantity: 2 },
        ],
      },
    ];
    const reserved = pending.reservationConfirmed('r-1', later, later, held).order;
    expect(reserved).to.include({ status: 'reserved', version: 2 });
    expect(reserved.lines.map((line) => line.allocations)).to.deep.equal([held[0]!.allocations]);
    expect(paidThroughProvider(reserved, later).lines).to.deep.equal(reserved.lines);
  });

  it('learns the allocations from a second confirmation of its hold, once, whichever version came first', () => {
    const held = [{ productId: 1, allocations: [{ locationId: 2, quantity: 3 }] }];
    const withoutThem = orderIn('pending').reservationConfirmed('r-1', later, later).order;
    const learnt = withoutThem.reservationConfirmed('r-1', later, later, held);
    expect(learnt.changed).to.equal(true);
    expect(learnt.order).to.include({ status: 'reserved', version: withoutThem.version + 1 });
    expect(learnt.order.lines[0]!.allocations).to.deep.equal([{ locationId: 2, quantity: 3 }]);
    for (const again of [
      learnt.order.reservationConfirmed('r-1', later, later, held),
      learnt.order.reservationConfirmed('r-1', later, later),
    ])
      expect(again).to.deep.equal({ changed: false, order: learnt.order });
    const paid = paidThroughProvider(withoutThem, later);
    expect(paid.reservationConfirmed('r-1', later, later, held).order).to.include({ status: 'paid' });
  });

  it('shows no allocations for a hold it does not hold: another reservation, or one that lapsed before it was confirmed', () => {
    const held = [{ productId: 1, allocations: [{ locationId: 2, quantity: 3 }] }];
    const reserved = orderIn('pending').reservationConfirmed('r-1', later, later).order;
    expect(reserved.reservationConfirmed('r-2', later, later, held)).to.deep.equal({ changed: false, order: reserved });
    const expired = orderIn('pending').reservationExpired('r-1', later).order;
    expect(expired.reservationConfirmed('r-1', later, later, held)).to.deep.equal({ changed: false, order: expired });
  });

  it("ignores an event about another reservation than the order's own", () => {
    const reserved = orderIn('pending').reservationConfirmed('r-1', later, later).order;
    for (const outcome of [
      reserved.reservationReleased('r-2', later),
      reserved.reservationCommitted('r-2', later),
      reserved.reservationExpired('r-2', later),
    ]) {
      expect(outcome).to.deep.equal({ changed: false, order: reserved });
    }
  });

  it('ends where in-order delivery would, whichever order stock’s events come in', () => {
    const pending = orderIn('pending');
    const confirm = (o: Order) => o.reservationConfirmed('r-1', later, later).order;
    const inputs: Record<string, (o: Order) => Order> = {
      expired: (o) => o.reservationExpired('r-1', later).order,
      released: (o) => o.reservationReleased('r-1', later).order,
      committed: (o) => o.reservationCommitted('r-1', later).order,
    };
    for (const [name, settle] of Object.entries(inputs)) {
      const inOrder = settle(confirm(pending));
      const overtaken = confirm(settle(pending));
      expect(overtaken.status, `${name} before confirmed`).to.equal(inOrder.status);
      expect(settle(overtaken), `${name} twice`).to.equal(overtaken);
    }
  });
});

describe("an order's shipments and returns", () => {
  /** Two lines of one product (2 then 3 lamps) and one of another: Order.place takes lines as given. */
  function paidOrderOfTwoLampLines(): Order {
    const placed = Order.place(
      'o-2',
      'buyer-a',
      [
        { productId: 1, name: 'Lamp', unitPrice: Money.fromCents(1999), quantity: 2 },
        { productId: 7, name: 'Desk', unitPrice: Money.fromCents(15000), quantity: 1 },
        { productId: 1, name: 'Lamp', unitPrice: Money.fromCents(1999), quantity: 3 },
      ],
      at,
    );
    return Order.restore({ ...placed, status: 'paid', reservationId: 'r-1' });
  }
  const counts = (order: Order) => order.lines.map((line) => [line.shippedQuantity, line.returnedQuantity]);

  it('is placed with nothing shipped or returned', () => {
    expect(counts(paidOrderOfTwoLampLines())).to.deep.equal([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
  });

  it("fills a product's lines in line order, each up to its quantity, summing the shipment's locations", () => {
    const shipped = paidOrderOfTwoLampLines().shipmentCreated(
      [
        { productId: 1, quantity: 1 },
        { productId: 1, quantity: 2 },
      ],
      later,
    ).order;
    expect(shipped).to.include({ status: 'partially_shipped', version: 2 });
    expect(counts(shipped)).to.deep.equal([
      [2, 0],
      [0, 0],
      [1, 0],
    ]);
    const rest = shipped.shipmentCreated(
      [
        { productId: 7, quantity: 1 },
        { productId: 1, quantity: 2 },
      ],
      later,
    ).order;
    expect(rest).to.include({ status: 'shipped', version: 3 });
    expect(counts(rest)).to.deep.equal([
      [2, 0],
      [1, 0],
      [3, 0],
    ]);
  });

  it('counts returned units the same way, and is returned once every shipped unit came back', () => {
    const shipped = paidOrderOfTwoLampLines().shipmentCreated(
      [
        { productId: 1, quantity: 5 },
        { productId: 7, quantity: 1 },
      ],
      later,
    ).order;
    const partly = shipped.returnReceived([{ productId: 1, quantity: 3 }], later).order;
    expect(partly.status).to.equal('shipped');
    expect(counts(partly)).to.deep.equal([
      [2, 2],
      [1, 0],
      [3, 1],
    ]);
    const all = partly.returnReceived(
      [
        { productId: 7, quantity: 1 },
        { productId: 1, quantity: 2 },
      ],
      later,
    ).order;
    expect(all.status).to.equal('returned');
    expect(counts(all)).to.deep.equal([
      [2, 2],
      [1, 1],
      [3, 3],
    ]);
  });

  it('ignores units of a product the order does not have, or beyond what it ordered: stock ships only what it holds', () => {
    const order = paidOrderOfTwoLampLines();
    expect(order.shipmentCreated([{ productId: 99, quantity: 1 }], later)).to.deep.equal({ changed: false, order });
    const shipped = order.shipmentCreated([{ productId: 7, quantity: 4 }], later).order;
    expect(counts(shipped)[1]).to.deep.equal([1, 0]);
    expect(shipped.shipmentCreated([{ productId: 7, quantity: 1 }], later)).to.deep.equal({
      changed: false,
      order: shipped,
    });
  });

  it('ends where in-order delivery would, whichever order its shipments and returns are handled in', () => {
    const order = orderIn('paid');
    const events: Record<string, (o: Order) => Order> = {
      'ship 1': (o) => o.shipmentCreated(lamps(1), later).order,
      'ship 2': (o) => o.shipmentCreated(lamps(2), later).order,
      'return 3': (o) => o.returnReceived(lamps(3), later).order,
    };
    const inOrder = Object.values(events).reduce((o, apply) => apply(o), order);
    expect(inOrder.status).to.equal('returned');
    for (const names of [
      ['ship 2', 'ship 1', 'return 3'],
      ['return 3', 'ship 1', 'ship 2'],
      ['ship 1', 'return 3', 'ship 2'],
    ]) {
      const reordered = names.reduce((o, name) => events[name]!(o), order);
      expect(reordered.status, names.join(', ')).to.equal('returned');
      expect(reordered.lines, names.join(', ')).to.deep.equal(inOrder.lines);
    }
    expect(
      events['return 3']!(events['ship 1']!(order)).status,
      'a return ahead of the shipment it takes back',
    ).to.equal('partially_shipped');
  });

  it('owes the payment back when cancelled after payment, not before', () => {
    const paid = orderIn('paid').cancel(later).order;
    expect(paid).to.include({ status: 'cancelled', paymentToRelease: true });
    for (const status of ['pending', 'reserved'] as const)
      expect(orderIn(status).cancel(later).order).not.to.have.property('paymentToRelease');
    expect(paid.cancel(later)).to.deep.equal({ changed: false, order: paid });
  });

  it('counts what stock shipped and took back for a cancelled order (a race with the cancel), and stays cancelled', () => {
    const cancelled = orderIn('paid').cancel(later).order;
    const shipped = cancelled.shipmentCreated(lamps(2), later).order;
    const returned = shipped.returnReceived(lamps(2), later).order;
    expect(returned).to.include({ status: 'cancelled', paymentToRelease: true, version: cancelled.version + 2 });
    expect(counts(returned)).to.deep.equal([[2, 2]]);
  });

  it('keeps the reservation stock committed for a paid order, and moves nothing', () => {
    const paid = Order.restore({ ...orderIn('paid'), reservationId: undefined });
    const committed = paid.reservationCommitted('r-1', later);
    expect(committed.changed).to.equal(true);
    expect(committed.order).to.include({ status: 'paid', reservationId: 'r-1' });
    expect(committed.order.reservationCommitted('r-1', later).changed).to.equal(false);
  });

  it('reads back from its snapshot whole, and reads a snapshot written before shipments as nothing shipped', () => {
    const order = orderIn('paid').shipmentCreated(lamps(2), later).order.returnReceived(lamps(1), later).order;
    expect(orderFromSnapshot(orderSnapshot(order))).to.deep.equal(order);
    const cancelled = orderIn('paid').cancel(later).order;
    expect(orderFromSnapshot(orderSnapshot(cancelled))).to.deep.equal(cancelled);
    const before = orderSnapshot(orderIn('paid'));
    const lines = before.lines.map(({ shippedQuantity: _s, returnedQuantity: _r, ...line }) => line);
    expect(orderFromSnapshot({ ...before, lines })).to.deep.equal(orderIn('paid'));
  });
});

describe('OrderRequest', () => {
  it('sums the lines of a product and sorts them by product', () => {
    const request = OrderRequest.create({
      lines: [
        { productId: 9, quantity: 1 },
        { productId: 2, quantity: 4 },
        { productId: 9, quantity: 2 },
      ],
    });
    expect(request.lines).to.deep.equal([
      { productId: 2, quantity: 4 },
      { productId: 9, quantity: 3 },
    ]);
  });

  it('refuses no lines, more than 100, quantities outside 1..10000 and bad product ids', () => {
    for (const lines of [
      [],
      Array.from({ length: 101 }, (_, i) => ({ productId: i + 1, quantity: 1 })),
      [{ productId: 1, quantity: 0 }],
      [{ productId: 1, quantity: 10_001 }],
      [{ productId: 0, quantity: 1 }],
      [
        { productId: 1, quantity: 6000 },
        { productId: 1, quantity: 6000 },
      ],
    ]) {
      expect(() => OrderRequest.create({ lines }), JSON.stringify(lines).slice(0, 60)).to.throw(ValidationError);
    }
  });
});
