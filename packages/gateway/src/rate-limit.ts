import { type Logger, principalOf, problem, sendProblem } from '@platform/http';
import type { Redis } from 'ioredis';
import type { Middleware } from 'koa';

/** How many requests a client made in the current window, and when the window ends (epoch ms). */
export interface WindowCount {
  readonly count: number;
  readonly resetAt: number;
}

/** Counts a client's requests per fixed window. */
export interface RateCounter {
  /** Counts one more request of `client` and answers the window's count. */
  hit(client: string, windowMs: number, now: number): Promise<WindowCount>;
}

/** Counts in this process: one gateway instance. Windows of clients gone quiet are dropped as new ones open. */
export class InMemoryRateCounter implements RateCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  async hit(client: string, windowMs: number, now: number): Promise<WindowCount> {
    let window = this.windows.get(client);
    if (!window || window.resetAt <= now) {
      if (this.windows.size > 10_000)
        for (const [key, old] of this.windows) if (old.resetAt <= now) this.windows.delete(key);
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
 * window, counted and expired atomically by a script. While Redis does not
 * answer (within its command timeout, or at all) each instance counts in its
 * own process instead: the limit still holds, per instance, and Redis being
 * away neither lets a flood through nor takes the API down. Falling back and
 * coming back are each said once.
 */
export class RedisRateCounter implements RateCounter {
  private failing = false;
  private readonly local = new InMemoryRateCounter();

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly prefix = 'gateway:rate:',
  ) {}

  async hit(client: string, windowMs: number, now: number): Promise<WindowCount> {
    const windowStart = now - (now % windowMs);
    try {
      const count = Number(await this.redis.eval(HIT, 1, `${this.prefix}${windowStart}:${client}`, String(windowMs)));
      if (this.failing) this.logger.info('Redis answers again: the rate limit is shared again');
      this.failing = false;
      return { count, resetAt: windowStart + windowMs };
    } catch (error) {
      this.fallBack(error);
      return this.local.hit(client, windowMs, now);
    }
  }

  /**
   * Counts in this process from now on, until Redis answers a count again (also what the start does when Redis is not
   * there).
   */
  fallBack(error: unknown): void {
    if (!this.failing)
      this.logger.warn(
        'Redis does not answer: the rate limit is counted in this process (per instance) until it does',
        { error: String(error) },
      );
    this.failing = true;
  }
}

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** An IPv6 address in its shortest form (RFC 5952, as WHATWG URL writes it), or undefined when it is none. */
function shortestIpv6(address: string): string | undefined {
  const url = `http://[${address}]/`;
  return URL.canParse(url) ? new URL(url).hostname.slice(1, -1) : undefined;
}

/**
 * Who a client without a token is, for the limit: an IPv4 address as it is,
 * an IPv6 one by its /64. A subscriber gets a /64 (or more) and may use any
 * address in it, so counting addresses would give one client 2^64 budgets.
 */
export function addressKey(ip: string): string {
  const mapped = IPV4_MAPPED.exec(ip);
  if (mapped) return mapped[1]!;
  if (!ip.includes(':')) return ip;
  const shortest = shortestIpv6(ip.replace(/%.*$/, ''));
  if (shortest === undefined) return ip;
  const [head = '', tail] = shortest.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${shortestIpv6([...groups.slice(0, 4), '0', '0', '0', '0'].join(':'))}/64`;
}

const WINDOW_MS = 60_000;

/**
 * At most `perMinute` requests per client per minute: the subject of the
 * token when the request has a verified one, else the address it comes from
 * (no token, a bad one, or a path that needs none; IPv6 by its /64). Beyond, a 429 problem with
 * Retry-After (the seconds until the window ends).
 */
export function rateLimit(counter: RateCounter, perMinute: number, now: () => number = Date.now): Middleware {
  return async function rateLimitPerClient(ctx, next) {
    const subject = principalOf(ctx)?.subject;
    const client = subject === undefined ? `ip:${addressKey(ctx.request.ip)}` : `sub:${subject}`;
    const at = now();
    const window = await counter.hit(client, WINDOW_MS, at);
    if (window.count > perMinute) {
      sendProblem(
        ctx,
        problem(
          429,
          'RATE_LIMITED',
          `More than ${perMinute} requests in a minute from this client; try again when the window ends.`,
        ),
      );
      ctx.set('Retry-After', String(Math.max(1, Math.ceil((window.resetAt - at) / 1000))));
      // Whose budget ran out depends on the token (or the address): no cache may answer it to another client.
      ctx.set('Cache-Control', 'no-store');
      return;
    }
    await next();
  };
}
