import type { ChaosMode } from '../config';
import type { WebhookEndpoint } from './webhook-endpoints';

/** One event on its way to one endpoint: the exact body every attempt sends. */
export interface Delivery {
  readonly eventId: string;
  readonly eventType: string;
  readonly endpoint: WebhookEndpoint;
  readonly payload: string;
}

/** One attempt: whether the endpoint answered 2xx. It never throws; a network error is a failed attempt. */
export type Attempt = (delivery: Delivery, signal: AbortSignal) => Promise<boolean>;

export interface DispatcherOptions {
  readonly attempt: Attempt;
  readonly retryFirstMs: number;
  readonly retryMaxMs: number;
  readonly chaos: readonly ChaosMode[];
  readonly chaosDelayMs: number;
  /** Told of each failed attempt, with the wait before the next. */
  readonly onRetry?: (delivery: Delivery, attempts: number, waitMs: number) => void;
}

/** The wait before retry number `retry` (1, 2, …): the first wait, doubling, never above the cap. */
export function backoffMs(retry: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(retry - 1, 30));
}

/**
 * Sends each delivery until its endpoint answers 2xx, retrying with
 * exponential backoff (PAYMENTS_RETRY_FIRST_MS, doubling, capped at
 * PAYMENTS_RETRY_MAX_MS), each delivery on its own: a slow endpoint holds back
 * nothing else. On purpose, as PAYMENTS_CHAOS says: `duplicate` sends each
 * delivery twice (two independent deliveries of the same event, same id);
 * `reorder` gathers an endpoint's deliveries for PAYMENTS_CHAOS_DELAY_MS and
 * sends each batch newest first; `delay` holds each delivery
 * PAYMENTS_CHAOS_DELAY_MS before its first attempt (after the batch, with
 * both). `stop` cancels what waits and aborts what is in flight.
 */
export class WebhookDispatcher {
  /**
   * Deliveries (each copy of a duplicated event counts) not taken yet, waiting or retrying, and those taken: a test
   * knows every late and duplicated event has arrived when none waits.
   */
  readonly counts = { waiting: 0, delivered: 0 };
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly batches = new Map<string, Delivery[]>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: DispatcherOptions) {}

  dispatch(delivery: Delivery): void {
    if (this.stopping.signal.aborted) return;
    this.counts.waiting += this.options.chaos.includes('duplicate') ? 2 : 1;
    if (this.options.chaos.includes('reorder')) this.gather(delivery);
    else this.schedule(delivery);
  }

  stop(): void {
    this.stopping.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private gather(delivery: Delivery): void {
    const key = delivery.endpoint.id;
    const batch = this.batches.get(key);
    if (batch) {
      batch.push(delivery);
      return;
    }
    this.batches.set(key, [delivery]);
    this.after(this.options.chaosDelayMs, () => {
      const gathered = this.batches.get(key) ?? [];
      this.batches.delete(key);
      for (const each of gathered.reverse()) this.schedule(each);
    });
  }

  private schedule(delivery: Delivery): void {
    const { chaos, chaosDelayMs } = this.options;
    const copies = chaos.includes('duplicate') ? 2 : 1;
    const wait = chaos.includes('delay') ? chaosDelayMs : 0;
    for (let copy = 0; copy < copies; copy++) {
      if (wait === 0) void this.send(delivery, 1);
      else this.after(wait, () => void this.send(delivery, 1));
    }
  }

  private async send(delivery: Delivery, attempts: number): Promise<void> {
    const delivered = await this.options.attempt(delivery, this.stopping.signal);
    if (delivered) {
      this.counts.waiting--;
      this.counts.delivered++;
      return;
    }
    if (this.stopping.signal.aborted) return;
    const wait = backoffMs(attempts, this.options.retryFirstMs, this.options.retryMaxMs);
    this.options.onRetry?.(delivery, attempts, wait);
    this.after(wait, () => void this.send(delivery, attempts + 1));
  }

  private after(ms: number, run: () => void): void {
    if (this.stopping.signal.aborted) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }
}
