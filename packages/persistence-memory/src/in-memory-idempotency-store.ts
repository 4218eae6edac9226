import { type IdempotencyStore, IdempotencyKeyReusedError, type IdempotentRequest, type IdempotentResult, type RecordedResponse } from '@stock/domain';

interface Entry {
  readonly fingerprint: string;
  readonly expiresAt: number;
  /** The first execution; repeats that arrive while it runs wait on it. */
  readonly response: Promise<RecordedResponse>;
}

/** Idempotency records for the in-memory adapter: this process only, like its products. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async once(request: IdempotentRequest, effect: () => Promise<RecordedResponse>): Promise<IdempotentResult> {
    const id = `${request.scope}\n${request.key}`;
    const existing = this.entries.get(id);
    if (existing && existing.expiresAt > this.now()) {
      if (existing.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError(request.key);
      try {
        return { response: await existing.response, replayed: true };
      } catch {
        // The first attempt failed and recorded nothing: this repeat runs the effect itself.
        return this.once(request, effect);
      }
    }
    this.sweep();
    const response = effect();
    this.entries.delete(id); // re-inserted at the end, so the map stays in expiry order for the sweep
    this.entries.set(id, { fingerprint: request.fingerprint, expiresAt: this.now() + this.ttlMs, response });
    try {
      return { response: await response, replayed: false };
    } catch (error) {
      this.entries.delete(id); // nothing happened: a retry runs the effect again
      throw error;
    }
  }

  /** Drops expired records, oldest first: Map order is insertion order. */
  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt > now) break;
      this.entries.delete(id);
    }
  }
}
