import Router from '@koa/router';
import type { HttpMetrics } from './http-metrics';
import { queryParameters } from './query-parameters';
import { RequestError } from './request-error';

/**
 * The state of each thing an instance depends on, by name ("database": "up", "broker": "down"), as readiness reports
 * it.
 */
export type ReadinessChecks = Readonly<Record<string, string>>;

export interface OperationsRouterOptions {
  /** Whether this instance should get traffic: its dependencies answer and it is not shutting down. */
  readonly isReady: () => Promise<boolean>;
  /** What readiness reports beside its verdict, ready or not. */
  readonly checks?: () => Promise<ReadinessChecks>;
  readonly metrics: HttpMetrics;
}

/** Where an instance answers whether it lives and whether it is ready: what balancers and orchestrators poll. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/health/live', '/health/ready']);

/** Health checks for the orchestrator and metrics for Prometheus. */
export function operationsRouter({ isReady, checks, metrics }: OperationsRouterOptions): Router {
  const router = new Router();
  // They take no parameter, like any operation that takes none: `?verbose=1` is a 400, not silently ignored.
  const noQuery = queryParameters();
  router.get('/health/live', noQuery, (ctx) => {
    ctx.body = { status: 'live' };
  });
  router.get('/health/ready', noQuery, async (ctx) => {
    const [ready, states] = await Promise.all([isReady(), checks?.()]);
    if (!ready)
      throw new RequestError(
        'NOT_READY',
        'This instance is shutting down or cannot reach what it depends on.',
        states && { checks: states },
      );
    ctx.body = { status: 'ready', ...(states && { checks: states }) };
  });
  router.get('/metrics', noQuery, async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  return router;
}
