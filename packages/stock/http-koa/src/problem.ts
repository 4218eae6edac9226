import { problemsFor } from '@platform/koa';
import { InsufficientStockError, type StockErrorCode, StockLimitExceededError } from '@stock/domain';

/** The one table from the stock error codes to HTTP statuses: a code without a status does not compile. */
export const STATUS_BY_CODE: Readonly<Record<StockErrorCode, number>> = {
  VALIDATION_FAILED: 400,
  PRODUCT_NOT_FOUND: 404,
  INSUFFICIENT_STOCK: 409,
  STOCK_LIMIT_EXCEEDED: 409,
  VERSION_MISMATCH: 412,
  IDEMPOTENCY_KEY_REUSED: 422,
};

/** The problem for each stock error; a refused adjustment also says how much is available. */
export const toProblem = problemsFor(STATUS_BY_CODE, (error) =>
  error instanceof InsufficientStockError || error instanceof StockLimitExceededError ? { available: error.available } : undefined,
);
