import { DomainError, InsufficientStockError, StockLimitExceededError, ValidationError } from '@stock/domain';
import { type Problem, problem } from '@stock/koa-problem';
import { RequestError } from './request-error';

/** The one table from error codes to HTTP statuses. */
export const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  VALIDATION_FAILED: 400,
  BODY_REQUIRED: 400,
  BODY_NOT_AN_OBJECT: 400,
  MALFORMED_JSON: 400,
  PRODUCT_NOT_FOUND: 404,
  INSUFFICIENT_STOCK: 409,
  STOCK_LIMIT_EXCEEDED: 409,
  VERSION_MISMATCH: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  NOT_READY: 503,
};

/** What koa-bodyparser throws: raw-body's 413, co-body's parse failures (a SyntaxError with status 400). */
function fromBodyParser(error: Error & { status?: unknown; type?: unknown }): Problem | undefined {
  if (error.status === 413) return problem(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than 64 KiB.');
  if (error.status === 415) return problem(415, 'UNSUPPORTED_MEDIA_TYPE', 'The body uses a content encoding this service does not read.');
  if (error.status === 400 && (error.type === 'entity.parse.failed' || error instanceof SyntaxError)) {
    return problem(400, 'MALFORMED_JSON', 'The request body is not valid JSON (or not a JSON object).');
  }
  return undefined;
}

/** The problem for an error this service knows; undefined leaves it to the shared fallbacks (http-errors, then 500). */
export function toProblem(error: unknown): Problem | undefined {
  if (error instanceof ValidationError) return problem(400, error.code, error.message, error.errors);
  if (error instanceof InsufficientStockError || error instanceof StockLimitExceededError) {
    return { ...problem(409, error.code, error.message), available: error.available };
  }
  if (error instanceof DomainError || error instanceof RequestError) {
    const status = STATUS_BY_CODE[error.code];
    return status ? problem(status, error.code, error.message) : undefined;
  }
  return error instanceof Error ? fromBodyParser(error) : undefined;
}
