import type { Principal } from './principal';

/**
 * Tokens this verifier has already verified, keyed by the exact token string,
 * each kept no later than its `exp`: a client sends the same token for its
 * whole life (ten minutes by default), and checking its signature again on
 * every request was most of a guarded request's cost (docs/performance.md).
 * Every check depends on the string alone (a changed byte is another key) or
 * on the clock (an entry ends at `exp`), except the issuer's key set: when a
 * fetch finds a key withdrawn, the verifier empties the cache. Bounded: past
 * `capacity` the oldest entry goes. Nothing a second instance needs is here.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { readonly principal: Principal; readonly expiresAt: number }>();

  constructor(private readonly capacity: number) {}

  get(token: string, now: number): Principal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.principal;
    this.entries.delete(token);
    return undefined;
  }

  /** Keeps `principal` for `token` until `expiresAt` (epoch ms), unless that has already passed. */
  set(token: string, principal: Principal, expiresAt: number, now: number): void {
    if (this.capacity <= 0 || expiresAt <= now) return;
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { principal, expiresAt });
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
