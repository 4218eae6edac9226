import { expect } from 'chai';
import {
  ANONYMOUS_CALLER,
  isReachableBy,
  movementSeenBy,
  ORDER_FLOW_ACTOR,
  type Reservation,
  type StockMovement,
} from '../../src';

const at = new Date('2026-11-25T10:00:00Z');
const hold = (origin: Reservation['origin'], owner?: string): Reservation => ({
  id: '3f1c2b7e-9a40-4d1e-8f7a-2c1d0b9e6a55',
  reference: 'order-1042',
  origin,
  ...(owner !== undefined && { owner }),
  status: 'held',
  lines: [{ productId: 1, quantity: 1 }],
  expiresAt: at,
  createdAt: at,
  updatedAt: at,
});

describe('isReachableBy', () => {
  it('lets the caller that made an API hold reach it, and no other caller', () => {
    expect(isReachableBy(hold('api', 'shop-a'), 'shop-a')).to.equal(true);
    expect(isReachableBy(hold('api', 'shop-a'), 'shop-b')).to.equal(false);
    expect(isReachableBy(hold('api', 'shop-a'), 'Shop-A'), 'subjects compare exactly').to.equal(false);
    expect(isReachableBy(hold('api', 'shop-a'), ANONYMOUS_CALLER)).to.equal(false);
    expect(
      isReachableBy(hold('api', ANONYMOUS_CALLER), ANONYMOUS_CALLER),
      'a service without tokens reaches its own holds',
    ).to.equal(true);
  });

  it('lets no caller reach an order’s hold, whatever it claims to be', () => {
    for (const caller of ['shop-a', ANONYMOUS_CALLER, '', 'order'])
      expect(isReachableBy(hold('order'), caller), caller).to.equal(false);
    expect(isReachableBy({ ...hold('order'), owner: 'shop-a' }, 'shop-a'), 'even one that names an owner').to.equal(
      false,
    );
  });
});

describe('movementSeenBy', () => {
  const movement: StockMovement = {
    id: 7,
    productId: 1,
    locationId: 1,
    kind: 'reserved',
    quantityDelta: 0,
    reservedDelta: 1,
    committedDelta: 0,
    qualityControlDelta: 0,
    damagedDelta: 0,
    quantityAfter: 5,
    reservedAfter: 1,
    reasonCode: 'reserved',
    reservationId: 'r',
    requestId: 'q',
    actor: 'shop-a',
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    sequence: 3,
    at,
  };

  it('shows the reader the reservation, request and trace ids of a movement made for it', () => {
    expect(movementSeenBy(movement, 'shop-a')).to.deep.equal(movement);
  });

  it('leaves them out for any other reader, and of a movement an order’s event made, keeping the quantities', () => {
    const { reservationId: _r, requestId: _q, traceId: _t, ...rest } = movement;
    expect(movementSeenBy(movement, 'shop-b')).to.deep.equal(rest);
    const orderFlow = { ...movement, actor: ORDER_FLOW_ACTOR };
    const { reservationId: _r2, requestId: _q2, traceId: _t2, ...orderFlowSeen } = orderFlow;
    // Not even to a caller whose token's subject happens to be the service's name: its ids lead to orders.
    for (const reader of ['shop-a', ANONYMOUS_CALLER, ORDER_FLOW_ACTOR])
      expect(movementSeenBy(orderFlow, reader), reader).to.deep.equal(orderFlowSeen);
  });
});
