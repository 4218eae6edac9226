import { DomainError, type IdempotencyKeyReusedError, type ValidationError } from '@platform/kernel';
import type { OrderStatus } from './orders/order-status';
import type { PaymentEventRefusedError } from './payments/payment-provider';

/** Every code the sales domain and its use cases can fail with; the HTTP adapter maps each to a status. */
export type SalesErrorCode =
  | ValidationError['code']
  | IdempotencyKeyReusedError['code']
  | 'ORDER_NOT_FOUND'
  | 'ORDER_STATE_CONFLICT'
  | 'UNKNOWN_PRODUCTS'
  | 'PAYMENT_NOT_CAPTURED'
  | 'REFUND_EXCEEDS_CAPTURED'
  | PaymentEventRefusedError['code'];

/** The base of every sales error: its code must be one of SalesErrorCode (see StockError). */
export abstract class SalesError<Code extends SalesErrorCode> extends DomainError<Code> {}

/** No such order, or one the caller may not see: the two answer alike (OWASP API1). */
export class OrderNotFoundError extends SalesError<'ORDER_NOT_FOUND'> {
  readonly code = 'ORDER_NOT_FOUND';

  constructor(readonly orderId: string) {
    super(`Order ${orderId} does not exist.`);
  }
}

/** A transition the order's current state does not allow. */
export class OrderStateConflictError extends SalesError<'ORDER_STATE_CONFLICT'> {
  readonly code = 'ORDER_STATE_CONFLICT';

  constructor(
    readonly orderId: string,
    readonly status: OrderStatus,
    readonly action: string,
  ) {
    super(`Order ${orderId} is ${status}: it cannot be ${action}.`);
  }
}

/** Products the stock catalogue does not have, named together. */
export class UnknownProductsError extends SalesError<'UNKNOWN_PRODUCTS'> {
  readonly code = 'UNKNOWN_PRODUCTS';

  constructor(readonly productIds: readonly number[]) {
    super(`No product has the id${productIds.length > 1 ? 's' : ''} ${productIds.join(', ')}.`);
  }
}

/** A refund asked for before any money was taken: there is nothing to give back yet (cancel the order instead). */
export class PaymentNotCapturedError extends SalesError<'PAYMENT_NOT_CAPTURED'> {
  readonly code = 'PAYMENT_NOT_CAPTURED';

  constructor(readonly orderId: string) {
    super(`Order ${orderId} has no captured payment to refund: cancel it instead.`);
  }
}

/** A refund that, with the refunds pending or made, would give back more than was captured. */
export class RefundExceedsCapturedError extends SalesError<'REFUND_EXCEEDS_CAPTURED'> {
  readonly code = 'REFUND_EXCEEDS_CAPTURED';

  constructor(
    readonly orderId: string,
    /** What may still be refunded, as a decimal string. */
    readonly refundable: string,
  ) {
    super(`Order ${orderId} has ${refundable} left to refund of what was captured.`);
  }
}
