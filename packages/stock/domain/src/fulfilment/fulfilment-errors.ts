import { StockError } from '../errors';
import type { UnitsAt } from './fulfilment-fields';

/** An order stock holds nothing committed and unshipped for: unknown, not paid, cancelled, or shipped in full. */
export class OrderNotShippableError extends StockError<'ORDER_NOT_SHIPPABLE'> {
  readonly code = 'ORDER_NOT_SHIPPABLE';

  constructor(readonly orderId: string) {
    super(`Order ${orderId} has no committed units left to ship (it is unknown, not paid, cancelled or shipped).`);
  }
}

/** A shipment asks for more of a product than the order has committed and not shipped, where it asks. */
export class ShipmentExceedsCommittedError extends StockError<'SHIPMENT_EXCEEDS_COMMITTED'> {
  readonly code = 'SHIPMENT_EXCEEDS_COMMITTED';

  constructor(
    readonly orderId: string,
    /** What can still ship of each product the shipment named, and where (none: nothing of it). */
    readonly shippable: readonly UnitsAt[],
  ) {
    super(`The shipment asks for more of order ${orderId} than it has committed and not shipped; nothing was shipped.`);
  }
}

/** Units a return may still bring back of one product: shipped and not returned yet. */
export interface Returnable {
  readonly productId: number;
  readonly quantity: number;
}

/** A return of more units of a product than the order shipped and has not had back. */
export class ReturnExceedsShippedError extends StockError<'RETURN_EXCEEDS_SHIPPED'> {
  readonly code = 'RETURN_EXCEEDS_SHIPPED';

  constructor(
    readonly orderId: string,
    /** What can still come back of each product the return named. */
    readonly returnable: readonly Returnable[],
  ) {
    super(
      `The return brings back more of order ${orderId} than it shipped and has not had back; nothing was received.`,
    );
  }
}

export class ShipmentNotFoundError extends StockError<'SHIPMENT_NOT_FOUND'> {
  readonly code = 'SHIPMENT_NOT_FOUND';

  constructor(readonly shipmentId: string) {
    super(`Shipment ${shipmentId} does not exist.`);
  }
}

export class ReturnNotFoundError extends StockError<'RETURN_NOT_FOUND'> {
  readonly code = 'RETURN_NOT_FOUND';

  constructor(readonly returnId: string) {
    super(`Return ${returnId} does not exist.`);
  }
}
