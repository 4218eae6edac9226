/** A request that carries an Idempotency-Key. */
export interface IdempotentRequest {
  /** What the key is for, e.g. "POST /api/products": the same key may serve different operations. */
  readonly scope: string;
  readonly key: string;
  /** A digest of the request's payload: the same key with another payload is a client error. */
  readonly fingerprint: string;
}

/** What the first execution answered, to be answered again to every repeat. */
export interface RecordedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface IdempotentResult {
  readonly response: RecordedResponse;
  /** True when this is a repeat answered from the record. */
  readonly replayed: boolean;
}

/**
 * Runs an effect at most once per scope and key. Adapters keep the record in
 * the same store as the products, written in the same transaction as the
 * effect; a failed effect records nothing, so a retry runs it again.
 * Repeats that arrive while the first is running wait for its outcome.
 */
export interface IdempotencyStore {
  /** Throws IdempotencyKeyReusedError when the key was recorded with another fingerprint. */
  once(request: IdempotentRequest, effect: () => Promise<RecordedResponse>): Promise<IdempotentResult>;
}
