import { ValidationError } from '@platform/kernel';
import { Money } from '@commerce/shared-kernel';
import { expect } from 'chai';
import {
  Order,
  OrderRequest,
  type OrderStatus,
  OrderStateConflictError,
  type Outcome,
  RESERVATION_RELEASED,
} from '../src';

const at = new Date('2026-11-23T10:00:00Z');
const later = new Date('2026-11-23T10:05:00Z');
const STATUSES: OrderStatus[] = [
  'pending',
  'reserved',
  'paid',
  'completed',
  'rejected',
  'cancelled',
  'expired',
  'unfulfilled',
];

function orderIn(status: OrderStatus): Order {
  const placed = Order.place(
    '3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55',
    'buyer-a',
    [{ productId: 1, name: 'Lamp', unitPrice: Money.fromCents(1999), quantity: 3 }],
    at,
  );
  return Order.restore({ ...placed, status });
}

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
      cancelled: 'same',
      paid: '409',
      completed: '409',
      rejected: '409',
      expired: '409',
      unfulfilled: '409',
    },
  },
  pay: {
    input: (o) => o.pay(later),
    from: {
      reserved: 'paid',
      paid: 'same',
      completed: 'same',
      pending: '409',
      rejected: '409',
      cancelled: '409',
      expired: '409',
      unfulfilled: '409',
    },
  },
  confirmed: { input: (o) => o.reservationConfirmed('r-1', later, later), from: { pending: 'reserved' } },
  rejected: {
    input: (o) => o.reservationRejected([{ productId: 1, requested: 3, available: 1 }], 'insufficient-stock', later),
    from: { pending: 'rejected' },
  },
  // Committed or released through stock's own API before payment, or an event that overtook the confirmation: the order
  // follows stock.
  committed: {
    input: (o) => o.reservationCommitted('r-1', later),
    from: { paid: 'completed', reserved: 'completed', pending: 'completed' },
  },
  commitFailed: { input: (o) => o.commitFailed('the hold had expired', later), from: { paid: 'unfulfilled' } },
  expired: { input: (o) => o.reservationExpired('r-1', later), from: { reserved: 'expired', pending: 'expired' } },
  released: {
    input: (o) => o.reservationReleased('r-1', later),
    from: { reserved: 'cancelled', pending: 'cancelled' },
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
    expect(reserved.pay(later).order.lines).to.deep.equal(reserved.lines);
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
    const paid = withoutThem.pay(later).order;
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
