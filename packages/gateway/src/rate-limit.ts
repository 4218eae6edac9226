import { type Logger, principalOf, problem, sendProblem } from '@platform/koa';
import type { Redis } from 'ioredis';
import type { Middleware } from 'koa';

/** How many requests a client made in the current window, and when the window ends (epoch ms). */
export interface WindowCount {
  readonly count: number;
  readonly resetAt: number;
}

/** Counts a client's requests per fixed window. */
export interface RateCounter {
  /** Counts one more request of `client` and answers the window's count, or undefined when counting is not possible right now. */
  hit(client: string, windowMs: number, now: number): Promise<WindowCount | undefined>;
}

/** Counts in this process: one gateway instance. Windows of clients gone quiet are dropped as new ones open. */
export class InMemoryRateCounter implements RateCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  async hit(client: string, windowMs: number, now: number): Promise<WindowCount> {
    let window = this.windows.get(client);
    if (!window || window.resetAt <= now) {
      if (this.windows.size > 10_000) for (const [key, old] of this.windows) if (old.resetAt <= now) this.windows.delete(key);
      window = { count: 0, resetAt: now - (now % windowMs) + windowMs };
      this.windows.set(client, window);
    }
    window.count += 1;
    return { count: window.count, resetAt: window.resetAt };
  }
}

/** One round trip: count, and set the window's expiry on its first request. */
const HIT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * Counts in Redis, shared by every gateway instance: one key per client and
 * window, counted and expired atomically by a script. When Redis does not
 * answer (within its command timeout) the count is unknown and the request is
 * let through: the limit protects the services, it must not take them down.
 */
export class RedisRateCounter implements RateCounter {
  private failing = false;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly prefix = 'gateway:rate:',
  ) {}

  async hit(client: string, windowMs: number, now: number): Promise<WindowCount | undefined> {
    const windowStart = now - (now % windowMs);
    try {
      const count = Number(await this.redis.eval(HIT, 1, `${this.prefix}${windowStart}:${client}`, String(windowMs)));
      if (this.failing) this.logger.info('Redis answers again: the rate limit is shared again');
      this.failing = false;
      return { count, resetAt: windowStart + windowMs };
    } catch (error) {
      if (!this.failing) this.logger.warn('Redis does not answer: requests are let through without a rate limit until it does', { error: String(error) });
      this.failing = true;
      return undefined;
    }
  }
}

const WINDOW_MS = 60_000;

/**
 * At most `perMinute` requests per client per minute: the subject of the
 * token when the request has a verified one, else the address it comes from
 * (no token, a bad one, or a path that needs none). Beyond, a 429 problem with
 * Retry-After (the seconds until the window ends).
 */
export function rateLimit(counter: RateCounter, perMinute: number, now: () => number = Date.now): Middleware {
  return async function rateLimitPerClient(ctx, next) {
    const subject = principalOf(ctx)?.subject;
    const client = subject === undefined ? `ip:${ctx.request.ip}` : `sub:${subject}`;
    const at = now();
    const window = await counter.hit(client, WINDOW_MS, at);
    if (window && window.count > perMinute) {
      sendProblem(ctx, problem(429, 'RATE_LIMITED', `More than ${perMinute} requests in a minute from this client; try again when the window ends.`));
      ctx.set('Retry-After', String(Math.max(1, Math.ceil((window.resetAt - at) / 1000))));
      return;
    }
    await next();
  };
}
