import { UnavailableError } from '@platform/kernel';
import {
  abandonHttpClientSpan,
  activeContext,
  type Context,
  endHttpClientSpan,
  startHttpClientSpan,
} from '@platform/runtime';
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  bulkhead,
  type CircuitBreakerPolicy,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  IsolatedCircuitError,
  retry,
  TaskCancelledError,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import { Pool } from 'undici';

export interface ResilienceOptions {
  /** Longest one attempt may take, connection, headers and body included. */
  readonly attemptTimeoutMs: number;
  /** Further attempts of a read after a transient failure (0: none). */
  readonly retries: number;
  /** Consecutive failed attempts that open the breaker. */
  readonly failuresToOpen: number;
  /** How long an open breaker refuses at once before it lets one call try. */
  readonly halfOpenAfterMs: number;
  /** First backoff between attempts; doubling, with jitter, up to a second. */
  readonly backoffMs: number;
  /** Keep-alive connections to the service, at most: as many calls at once; the others wait their turn. */
  readonly connections: number;
  /** Calls that may wait for a connection; one more is refused at once. */
  readonly waiting: number;
}

export const DEFAULT_RESILIENCE: ResilienceOptions = {
  attemptTimeoutMs: 2_000,
  retries: 2,
  failuresToOpen: 5,
  halfOpenAfterMs: 5_000,
  backoffMs: 100,
  connections: 32,
  waiting: 1_000,
};

/**
 * The service answered 5xx, or something that is not what it promised: it counts against the breaker and may be
 * retried.
 */
export class UpstreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The network errors worth another attempt: the peer was not there, went away, or took too long. */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

function isTransient(error: unknown): boolean {
  if (error instanceof TaskCancelledError || error instanceof UpstreamError) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && TRANSIENT_CODES.has(code);
}

export interface JsonResponse {
  readonly status: number;
  readonly body: unknown;
}

/**
 * JSON over a keep-alive pool to one service, with the three policies a call
 * to another service needs (cockatiel, ADR 0012): a timeout on every attempt
 * (the socket is aborted, not just abandoned), bounded retries with backoff
 * for reads, and a circuit breaker that counts every attempt. A call waits
 * for one of `connections` before its first attempt starts, so a burst's wait
 * in our own queue is never taken for the service's slowness (it once opened
 * the breaker on a healthy service). Whatever ends
 * without an answer (breaker open, attempts spent) is an UnavailableError
 * with `code`, which the HTTP platform answers as 503 with Retry-After.
 */
export class ResilientJsonClient {
  private readonly pool: Pool;
  private readonly origin: URL;
  private readonly prefix: string;
  readonly breaker: CircuitBreakerPolicy;
  private readonly reads;
  private openedAt = 0;

  constructor(
    baseUrl: string,
    private readonly code: `${string}_UNAVAILABLE`,
    private readonly service: string,
    private readonly options: ResilienceOptions = DEFAULT_RESILIENCE,
  ) {
    const url = new URL(baseUrl);
    this.origin = new URL(url.origin);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      connectTimeout: options.attemptTimeoutMs,
      // One request per connection (HTTP/1.1), as `connections` counts them: undici 8 would multiplex HTTP/2 over TLS.
      allowH2: false,
      // undici's own timers sit above the attempt's: the policy decides, and aborts the socket.
      headersTimeout: options.attemptTimeoutMs + 1_000,
      bodyTimeout: options.attemptTimeoutMs + 1_000,
    });
    this.breaker = circuitBreaker(handleWhen(isTransient), {
      halfOpenAfter: options.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(options.failuresToOpen),
    });
    this.breaker.onBreak(() => (this.openedAt = Date.now()));
    const retries = retry(
      handleWhen((error) => isTransient(error)),
      {
        maxAttempts: options.retries,
        backoff: new ExponentialBackoff({ initialDelay: options.backoffMs, maxDelay: 1_000 }),
      },
    );
    // bulkhead(retry(breaker(timeout(call)))): a call starts once it has a connection; every attempt is then timed and
    // counted; an open breaker is not retried (not transient), and the calls waiting behind it fail as fast.
    const turns = bulkhead(options.connections, options.waiting);
    this.reads = wrap(turns, retries, this.breaker, timeout(options.attemptTimeoutMs, TimeoutStrategy.Aggressive));
  }

  /**
   * A GET of `path` (below the base URL's path): its status and parsed JSON body; 5xx and transport failures are
   * retried.
   */
  async get(path: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
    // Where the call began: its attempts may start elsewhere (the bulkhead starts a queued call from another's end).
    const caller = activeContext();
    try {
      return await this.reads.execute(({ signal }) => this.attemptGet(path, headers, signal, caller));
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /**
   * One attempt, as a client span of the caller's trace when tracing is on (ADR 0021): its `traceparent` goes along,
   * so the service's span for the request is the attempt's child, and each retry is a span of its own.
   */
  private async attemptGet(
    path: string,
    headers: Record<string, string>,
    signal: AbortSignal,
    caller: Context | undefined,
  ): Promise<JsonResponse> {
    const attempt = caller && startHttpClientSpan('GET', this.origin, caller);
    let text: string;
    let status: number;
    try {
      const response = await this.pool.request({
        method: 'GET',
        path: this.prefix + path,
        signal,
        headers: { accept: 'application/json', ...headers, ...attempt?.headers },
      });
      status = response.statusCode;
      text = await response.body.text(); // inside the policy: a stalled body counts as a failed attempt
    } catch (error) {
      if (attempt) abandonHttpClientSpan(attempt.span, error);
      throw error;
    }
    if (attempt) endHttpClientSpan(attempt.span, status);
    if (status >= 500) throw new UpstreamError(`${this.service} answered ${status}`);
    try {
      return { status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
    } catch {
      throw new UpstreamError(`${this.service} answered ${status} with a body that is not JSON`);
    }
  }

  /** The error to throw for a call that ended without an answer; others (a bug of ours) go through as they are. */
  private unavailable(error: unknown): unknown {
    if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
      const retryAfter = Math.max(1, Math.ceil((this.openedAt + this.options.halfOpenAfterMs - Date.now()) / 1000));
      return new UnavailableError(
        this.code,
        `The ${this.service} is not answering; retry in ${retryAfter} s.`,
        retryAfter,
        { cause: error },
      );
    }
    if (error instanceof BulkheadRejectedError) {
      return new UnavailableError(this.code, `Too many calls are waiting for the ${this.service}; retry in 1 s.`, 1, {
        cause: error,
      });
    }
    if (!isTransient(error)) return error;
    const reason =
      error instanceof TaskCancelledError
        ? `did not answer within ${this.options.attemptTimeoutMs} ms`
        : (error as Error).message;
    return new UnavailableError(this.code, `The ${this.service} could not be reached: ${reason}.`, 1, { cause: error });
  }

  /** Closes the pooled connections; calls in flight finish first. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
