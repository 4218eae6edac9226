/**
 * Something the service depends on (its database, the broker, another
 * service) cannot serve now. Not the caller's fault and not a bug: the caller
 * may retry after `retryAfterSeconds`. Adapters throw it; the HTTP platform
 * answers 503 with Retry-After.
 */
export class UnavailableError extends Error {
  constructor(
    readonly code: `${string}_UNAVAILABLE`,
    message: string,
    readonly retryAfterSeconds = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'UnavailableError';
  }
}
