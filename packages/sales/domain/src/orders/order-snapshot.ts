import { Money } from '@commerce/shared-kernel';
import { type Allocation, Order, type OrderStatus, type Shortage } from './order';

/** An order as JSON, money in cents and times in ISO: how idempotency records and the orders table's lines keep it. */
export interface OrderSnapshot {
  id: string;
  buyer: string;
  status: OrderStatus;
  /**
   * allocations is absent from what was written before stock said where it holds a line: read as none;
   * shippedQuantity and returnedQuantity from what was written before shipments: read as 0.
   */
  lines: {
    productId: number;
    name: string;
    unitPriceCents: number;
    quantity: number;
    allocations?: Allocation[];
    shippedQuantity?: number;
    returnedQuantity?: number;
  }[];
  reservationId?: string;
  reservationExpiresAt?: string;
  shortages?: Shortage[];
  failureReason?: string;
  paymentToRelease?: true;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** An order as JSON: for idempotency records, and for the orders table's lines (money in cents, times in ISO). */
export function orderSnapshot(order: Order): OrderSnapshot {
  return {
    id: order.id,
    buyer: order.buyer,
    status: order.status,
    lines: order.lines.map(
      ({ productId, name, unitPrice, quantity, allocations, shippedQuantity, returnedQuantity }) => ({
        productId,
        name,
        unitPriceCents: unitPrice.cents,
        quantity,
        allocations: [...allocations],
        shippedQuantity,
        returnedQuantity,
      }),
    ),
    ...(order.reservationId !== undefined && { reservationId: order.reservationId }),
    ...(order.reservationExpiresAt !== undefined && { reservationExpiresAt: order.reservationExpiresAt.toISOString() }),
    ...(order.shortages !== undefined && { shortages: [...order.shortages] }),
    ...(order.failureReason !== undefined && { failureReason: order.failureReason }),
    ...(order.paymentToRelease && { paymentToRelease: true }),
    createdAt: order.createdAt.toISOString(),
    updatedAt: order.updatedAt.toISOString(),
    version: order.version,
  };
}

export function orderFromSnapshot(snapshot: OrderSnapshot): Order {
  const lines = snapshot.lines.map(
    ({ productId, name, unitPriceCents, quantity, allocations = [], shippedQuantity = 0, returnedQuantity = 0 }) => {
      const unitPrice = Money.fromCents(unitPriceCents);
      const lineTotal = unitPrice.times(quantity);
      return { productId, name, unitPrice, quantity, lineTotal, allocations, shippedQuantity, returnedQuantity };
    },
  );
  return Order.restore({
    id: snapshot.id,
    buyer: snapshot.buyer,
    status: snapshot.status,
    lines,
    total: lines.reduce((sum, line) => sum.plus(line.lineTotal), Money.fromCents(0)),
    ...(snapshot.reservationId !== undefined && { reservationId: snapshot.reservationId }),
    ...(snapshot.reservationExpiresAt !== undefined && {
      reservationExpiresAt: new Date(snapshot.reservationExpiresAt),
    }),
    ...(snapshot.shortages !== undefined && { shortages: snapshot.shortages }),
    ...(snapshot.failureReason !== undefined && { failureReason: snapshot.failureReason }),
    ...(snapshot.paymentToRelease && { paymentToRelease: true }),
    createdAt: new Date(snapshot.createdAt),
    updatedAt: new Date(snapshot.updatedAt),
    version: snapshot.version,
  });
}
