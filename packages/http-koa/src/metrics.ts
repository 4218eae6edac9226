import type { Middleware } from 'koa';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface PoolStats {
  readonly used: number;
  readonly free: number;
  readonly pending: number;
  readonly max: number;
}

export type AdjustmentOutcome = 'adjusted' | 'replayed' | 'insufficient_stock' | 'limit_exceeded' | 'not_found' | 'invalid' | 'error';

/** The service's Prometheus metrics, in a registry of its own (one per app, so tests can run several). */
export class StockMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [this.registry] });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly adjustments = new Counter({ name: 'stock_adjustments_total', help: 'Stock adjustments by outcome', labelNames: ['outcome'], registers: [this.registry] });

  constructor(poolStats?: () => PoolStats | undefined) {
    collectDefaultMetrics({ register: this.registry });
    if (poolStats) {
      new Gauge({
        name: 'db_pool_connections',
        help: 'Database pool connections by state (used, free, pending acquisitions, max)',
        labelNames: ['state'],
        registers: [this.registry],
        collect() {
          const stats = poolStats();
          if (!stats) return;
          for (const [state, value] of Object.entries(stats)) this.set({ state }, value);
        },
      });
    }
  }

  countAdjustment(outcome: AdjustmentOutcome): void {
    this.adjustments.inc({ outcome });
  }

  /** Times every request; the route label is the router's pattern, never the raw path, so it stays bounded. */
  middleware(): Middleware {
    return async (ctx, next) => {
      const stop = this.duration.startTimer();
      try {
        await next();
      } finally {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? (ctx.path.startsWith('/swagger') ? '/swagger' : 'unmatched');
        const labels = { route: String(route), method: ctx.method, status: String(ctx.status) };
        this.requests.inc(labels);
        stop(labels);
      }
    };
  }
}
