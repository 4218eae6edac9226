import { problemsFor } from '@platform/http';
import {
  OrderStateConflictError,
  RefundExceedsCapturedError,
  type SalesErrorCode,
  UnknownProductsError,
} from '@sales/domain';

/** The one table from the sales error codes to HTTP statuses: a code without a status does not compile. */
export const STATUS_BY_CODE: Readonly<Record<SalesErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  ORDER_NOT_FOUND: 404,
  ORDER_STATE_CONFLICT: 409,
  UNKNOWN_PRODUCTS: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  PAYMENT_NOT_CAPTURED: 409,
  REFUND_EXCEEDS_CAPTURED: 409,
  PAYMENT_EVENT_REFUSED: 400,
};

/** The problem for each sales error, with the members its type defines: which products, which state. */
export const toProblem = problemsFor(STATUS_BY_CODE, (error) => {
  if (error instanceof UnknownProductsError) return { productIds: error.productIds };
  if (error instanceof OrderStateConflictError) return { orderStatus: error.status };
  if (error instanceof RefundExceedsCapturedError) return { refundable: Number(error.refundable) };
  return undefined;
});
