/** The `type` of every error Stripe's API answers. */
export type StripeErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';

/** An error as Stripe's API answers it, inside `{ "error": … }`. */
export interface StripeErrorBody {
  readonly type: StripeErrorType;
  readonly message: string;
  readonly code?: string;
  readonly param?: string;
  readonly decline_code?: string;
  readonly doc_url?: string;
  readonly charge?: string;
  readonly payment_intent?: object;
}

/** A refusal the API answers with its status and Stripe's error body. */
export class StripeError extends Error {
  readonly body: StripeErrorBody;

  constructor(
    readonly status: number,
    body: StripeErrorBody,
  ) {
    super(body.message);
    this.name = 'StripeError';
    // Stripe links each coded error to its page.
    this.body = body.code
      ? { ...body, doc_url: `https://stripe.com/docs/error-codes/${body.code.replaceAll('_', '-')}` }
      : body;
  }
}

/** 400 invalid_request_error: the request cannot be carried out as asked. */
export function invalidRequest(message: string, details: { code?: string; param?: string } = {}): StripeError {
  return new StripeError(400, { type: 'invalid_request_error', message, ...details });
}

/** 404 resource_missing, worded as Stripe words it (`No such payment_intent: 'pi_…'`). */
export function noSuch(object: string, id: string, param: string): StripeError {
  return new StripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    param,
    message: `No such ${object}: '${id}'`,
  });
}
