import { StripeError } from '../stripe-error';

/** An answer as it went out: what a replay sends again. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** How long Stripe keeps a key's answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** JSON with every object's keys sorted: the same parameters in another order are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/**
 * Stripe's Idempotency-Key, as it documents it: the first request with a key
 * runs and its answer (an error included) is kept for 24 hours; the same key
 * with the same method, path and parameters answers that again; with anything
 * else, 400 idempotency_error. A request refused before it ran (a bad
 * parameter) keeps nothing. Answers are computed without awaiting, so a
 * concurrent request with the same key always finds the first one's answer.
 */
export class IdempotencyKeys {
  private readonly answers = new Map<string, { fingerprint: string; answer: Answer; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The answer for `key`: the kept one (`replayed`), or `run`'s, kept. */
  answer(key: string, request: { method: string; path: string; params: unknown }, run: () => Answer) {
    this.forgetExpired();
    const fingerprint = `${request.method} ${request.path} ${canonical(request.params)}`;
    const kept = this.answers.get(key);
    if (kept && kept.fingerprint !== fingerprint)
      throw new StripeError(400, {
        type: 'idempotency_error',
        message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
      });
    if (kept) return { ...kept.answer, replayed: true };
    const answer = run();
    this.answers.set(key, { fingerprint, answer, expiresAt: this.now() + IDEMPOTENCY_TTL_MS });
    return { ...answer, replayed: false };
  }

  /** Answers are kept in the order they expire in (insertion order), so the sweep stops at the first live one. */
  private forgetExpired(): void {
    const now = this.now();
    for (const [key, kept] of this.answers) {
      if (kept.expiresAt > now) return;
      this.answers.delete(key);
    }
  }
}
