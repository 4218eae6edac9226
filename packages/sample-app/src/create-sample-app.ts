import { swaggerDocs } from '@platform/http';
import Koa from 'koa';
import { errorMiddleware } from './error-middleware';
import { sampleRouter } from './sample-router';

export interface SampleAppOptions {
  /** The OpenAPI description served at /swagger. */
  readonly specFile: string;
  /** The clock the forecast dates count from. */
  readonly now?: () => Date;
  /** Uniform in [0, 1); drives temperatures and summaries. */
  readonly random?: () => number;
}

/** Outermost, so that every answer carries it, problems included: a body is only ever what its Content-Type says. */
async function noSniff(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  try {
    await next();
  } finally {
    ctx.set('X-Content-Type-Options', 'nosniff');
  }
}

function logUnexpected(error: unknown, ctx: Koa.Context): void {
  const detail = error instanceof Error ? error.stack : String(error);
  console.error(
    JSON.stringify({ level: 'error', msg: 'unhandled error', method: ctx.method, path: ctx.path, error: detail }),
  );
}

export function createSampleApp({ specFile, now = () => new Date(), random = Math.random }: SampleAppOptions): Koa {
  const app = new Koa();
  app.silent = true; // the error middleware logs each unexpected error once, with its request
  app.use(noSniff);
  app.use(errorMiddleware(logUnexpected));
  app.use(swaggerDocs({ specFile, title: 'Sample app', prefix: '/swagger' }));
  const router = sampleRouter({ now, random });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
