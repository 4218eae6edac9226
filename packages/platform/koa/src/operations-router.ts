import Router from '@koa/router';
import type { HttpMetrics } from './http-metrics';
import { RequestError } from './request-error';

export interface OperationsRouterOptions {
  /** Whether this instance should get traffic: its dependencies answer and it is not shutting down. */
  readonly isReady: () => Promise<boolean>;
  readonly metrics: HttpMetrics;
}

/** Health checks for the orchestrator and metrics for Prometheus. */
export function operationsRouter({ isReady, metrics }: OperationsRouterOptions): Router {
  const router = new Router();
  router.get('/health/live', (ctx) => {
    ctx.body = { status: 'live' };
  });
  router.get('/health/ready', async (ctx) => {
    if (!(await isReady())) throw new RequestError('NOT_READY', 'This instance is shutting down or cannot reach what it depends on.');
    ctx.body = { status: 'ready' };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  return router;
}
