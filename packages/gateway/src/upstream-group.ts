import { Agent, errors } from 'undici';

/** One instance of a service, as the gateway sees it. */
export interface Instance {
  readonly url: string;
  /** Its readiness answered 200 the last time it was asked. */
  ready: boolean;
  /** A connection to it failed: no traffic until this time (epoch ms), unless nothing else is left. */
  downUntil: number;
  /** Readiness probes in a row that got no answer in time. */
  unanswered: number;
}

/** Probes in a row without an answer that take an instance out: one slow answer under load is not a verdict. */
export const UNANSWERED_PROBES_TO_OUT = 3;

export interface UpstreamGroupOptions {
  /** What the group is called in logs, metrics and readiness: stock, sales, identity. */
  readonly name: string;
  readonly urls: readonly string[];
  /** How often each instance's /health/ready is asked. */
  readonly checkMs: number;
  /** How long an instance whose connection failed is left alone before the next check may bring it back. */
  readonly downMs?: number;
  readonly dispatcher: Agent;
  readonly logger?: {
    info(message: string, fields?: Record<string, unknown>): void;
    warn(message: string, fields?: Record<string, unknown>): void;
  };
  readonly now?: () => number;
}

/**
 * The instances of one service and which of them should get traffic. Each
 * is asked for its readiness every `checkMs` (a 503, as an instance draining
 * for its shutdown answers, takes it out); one whose connection fails is
 * taken out at once and comes back when its readiness answers 200 again.
 * `pick` goes round the usable instances in turn, skipping those tried.
 */
export class UpstreamGroup {
  readonly name: string;
  readonly instances: readonly Instance[];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: UpstreamGroupOptions) {
    this.name = options.name;
    // Optimistic until the first check: a gateway that starts beside its services routes at once.
    this.instances = options.urls.map((url) => ({ url, ready: true, downUntil: 0, unanswered: 0 }));
    this.now = options.now ?? Date.now;
  }

  /**
   * The next instance to try, not among `tried`: a usable one if any, else any not tried (better a try than a certain
   * 502).
   */
  pick(tried: ReadonlySet<Instance> = new Set()): Instance | undefined {
    const now = this.now();
    const candidates = this.instances.filter((instance) => !tried.has(instance));
    const usable = candidates.filter((instance) => instance.ready && instance.downUntil <= now);
    const pool = usable.length > 0 ? usable : candidates;
    if (pool.length === 0) return undefined;
    const chosen = pool[this.next++ % pool.length]!;
    return chosen;
  }

  /** A connection to `instance` failed: no traffic until its readiness answers again. */
  markDown(instance: Instance): void {
    if (instance.downUntil <= this.now() && instance.ready)
      this.options.logger?.warn('an upstream instance cannot be reached; it gets no traffic until it answers again', {
        upstream: this.name,
        url: instance.url,
      });
    instance.downUntil = this.now() + (this.options.downMs ?? 5_000);
    instance.ready = false;
  }

  /** Whether at least one instance is ready. */
  get available(): boolean {
    return this.instances.some((instance) => instance.ready && instance.downUntil <= this.now());
  }

  /** Asks every instance's readiness now; answers when all have answered (or timed out). */
  async check(): Promise<void> {
    await Promise.all(this.instances.map((instance) => this.checkOne(instance)));
  }

  /** Starts asking every `checkMs`. */
  start(): this {
    const tick = async () => {
      await this.check();
      if (this.timer) this.timer = setTimeout(() => void tick(), this.options.checkMs).unref();
    };
    this.timer = setTimeout(() => void tick(), 0).unref();
    return this;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async checkOne(instance: Instance): Promise<void> {
    const ready = await this.probe(instance);
    const was = instance.ready && instance.downUntil <= this.now();
    instance.unanswered = ready === 'unanswered' ? instance.unanswered + 1 : 0;
    instance.ready =
      ready === true || (ready === 'unanswered' && instance.ready && instance.unanswered < UNANSWERED_PROBES_TO_OUT);
    if (ready === true) instance.downUntil = 0;
    const now = instance.ready && instance.downUntil <= this.now();
    if (was !== now)
      this.options.logger?.[now ? 'info' : 'warn'](
        now
          ? 'an upstream instance is ready again'
          : 'an upstream instance is not ready; it gets no traffic until it is',
        { upstream: this.name, url: instance.url },
      );
  }

  /**
   * Its readiness: true on 200; false on another answer or a refused connection; 'unanswered' when no answer came in
   * time.
   */
  private async probe(instance: Instance): Promise<boolean | 'unanswered'> {
    const timeoutMs = Math.max(this.options.checkMs, 500);
    try {
      const { statusCode, body } = await this.options.dispatcher.request({
        origin: instance.url,
        path: '/health/ready',
        method: 'GET',
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await body.dump();
      return statusCode === 200;
    } catch (error) {
      return error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError
        ? 'unanswered'
        : false;
    }
  }
}
