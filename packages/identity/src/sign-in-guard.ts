import type { Redis } from 'ioredis';

export interface SignInLimits {
  /** Consecutive failures for one username, or from one address, that lock it. */
  readonly maxFailures: number;
  /** How long the lock lasts, from the failure that set it; also how long a failure is remembered. */
  readonly lockSeconds: number;
  /** Each failure remembered makes the next answer this much slower, up to ten times it. */
  readonly failureDelayMs: number;
}

const PREFIX = 'identity:sign-in:failures:';
const keysOf = (username: string, address: string) => [
  `${PREFIX}username:${username.toLowerCase().slice(0, 128)}`,
  `${PREFIX}address:${address}`,
];

/**
 * Counts failed sign-ins per username and per address in Redis, where every instance of the service counts them
 * together: in one process's memory an attacker spread over the instances would get that many more tries each.
 */
export class SignInGuard {
  constructor(
    private readonly redis: Redis,
    readonly limits: SignInLimits,
  ) {}

  /** The failures remembered for the username or the address, whichever has more. */
  async failures(username: string, address: string): Promise<number> {
    const counts = await this.redis.mget(...keysOf(username, address));
    return Math.max(...counts.map((count) => Number(count ?? 0)));
  }

  /** Whether so many failures are remembered that this sign-in is refused without looking at the password. */
  isLocked(failures: number): boolean {
    return failures >= this.limits.maxFailures;
  }

  /** How long to wait before answering, after `failures` failures: slower the more there were. */
  delayMs(failures: number): number {
    return Math.min(failures, 10) * this.limits.failureDelayMs;
  }

  /** Counts a failure for both; each count (and so the lock) lasts lockSeconds from the latest failure. */
  async failed(username: string, address: string): Promise<number> {
    const multi = this.redis.multi();
    for (const key of keysOf(username, address)) multi.incr(key).expire(key, this.limits.lockSeconds);
    const results = (await multi.exec()) ?? [];
    return Math.max(...results.filter((_, index) => index % 2 === 0).map(([, count]) => Number(count)));
  }

  /**
   * A sign-in that succeeded ends the username's run of failures. The address's count stays until it expires: a
   * guesser with one account of their own must not be able to reset it.
   */
  async succeeded(username: string): Promise<void> {
    await this.redis.del(keysOf(username, '')[0]!);
  }
}
