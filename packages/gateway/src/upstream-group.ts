import { Agent } from 'undici';

/** One instance of a service, as the gateway sees it. */
export interface Instance {
  readonly url: string;
  /** Its readiness answered 200 the last time it was asked. */
  ready: boolean;
  /** A connection to it failed: no traffic until this time (epoch ms), unless nothing else is left. */
  downUntil: number;
}

export interface UpstreamGroupOptions {
  /** What the group is called in logs, metrics and readiness: stock, sales, identity. */
  readonly name: string;
  readonly urls: readonly string[];
  /** How often each instance's /health/ready is asked. */
  readonly checkMs: number;
  /** How long an instance whose connection failed is left alone before the next check may bring it back. */
  readonly downMs?: number;
  readonly dispatcher: Agent;
  readonly logger?: { info(message: string, fields?: Record<string, unknown>): void; warn(message: string, fields?: Record<string, unknown>): void };
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
    this.instances = options.urls.map((url) => ({ url, ready: true, downUntil: 0 }));
    this.now = options.now ?? Date.now;
  }

  /** The next instance to try, not among `tried`: a usable one if any, else any not tried (better a try than a certain 502). */
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
    if (instance.downUntil <= this.now() && instance.ready) this.options.logger?.warn('an upstream instance cannot be reached; it gets no traffic until it answers again', { upstream: this.name, url: instance.url });
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
      if (this.timer) this.timer = setTimeout(tick, this.options.checkMs).unref();
    };
    this.timer = setTimeout(tick, 0).unref();
    return this;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async checkOne(instance: Instance): Promise<void> {
    let ready = false;
    try {
      const { statusCode, body } = await this.options.dispatcher.request({
        origin: instance.url,
        path: '/health/ready',
        method: 'GET',
        headersTimeout: Math.max(this.options.checkMs, 500),
        bodyTimeout: Math.max(this.options.checkMs, 500),
      });
      await body.dump();
      ready = statusCode === 200;
    } catch {
      ready = false;
    }
    const was = instance.ready && instance.downUntil <= this.now();
    instance.ready = ready;
    if (ready) instance.downUntil = 0;
    if (was !== ready) this.options.logger?.[ready ? 'info' : 'warn'](ready ? 'an upstream instance is ready again' : 'an upstream instance is not ready; it gets no traffic until it is', { upstream: this.name, url: instance.url });
  }
}
