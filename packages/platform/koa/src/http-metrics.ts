import type { Middleware } from 'koa';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * A service's Prometheus metrics, in a registry of its own (one per app, so
 * tests can run several): every request by route, method and status, the
 * process's defaults, and whatever the service adds to `registry`.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [this.registry] });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge read at scrape time, one series per key `collect` answers (nothing when it answers undefined). */
  addGauge(name: string, help: string, labelName: string, collect: () => Readonly<Record<string, number>> | undefined): void {
    new Gauge({
      name,
      help,
      labelNames: [labelName],
      registers: [this.registry],
      collect() {
        const values = collect();
        if (!values) return;
        for (const [label, value] of Object.entries(values)) this.set({ [labelName]: label }, value);
      },
    });
  }

  /** Times every request; the route label is the router's pattern, never the raw path, so it stays bounded. */
  middleware(): Middleware {
    const { requests, duration } = this;
    return async function httpMetrics(ctx, next) {
      const stop = duration.startTimer();
      try {
        await next();
      } finally {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? (ctx.path.startsWith('/swagger') ? '/swagger' : 'unmatched');
        const labels = { route: String(route), method: ctx.method, status: String(ctx.status) };
        requests.inc(labels);
        stop(labels);
      }
    };
  }
}
