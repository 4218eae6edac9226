import Router from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import {
  DEFAULT_LIMIT,
  etag,
  type Handlers,
  nextLink,
  pageOf,
  productJson,
  type StoredProduct,
  toBodyProduct,
} from './raw-http';

function answer(ctx: Koa.Context, outcome: StoredProduct | 'refused' | undefined, status = 200): void {
  if (outcome === undefined) return void (ctx.status = 404);
  if (outcome === 'refused') return void (ctx.status = 409);
  ctx.status = status;
  ctx.set('ETag', etag(outcome));
  ctx.body = productJson(outcome);
}

/**
 * Koa + @koa/router + koa-bodyparser over `handlers`: the same routes, JSON,
 * statuses, ETag and next-page link as the service, with none of our layers:
 * the framework's own ceiling on whatever storage the handlers use.
 */
export function koaApp(handlers: Handlers): Koa {
  const router = new Router({ prefix: '/api/products' });
  router.get('/', async (ctx) => {
    const limit = Number(ctx.query.limit ?? DEFAULT_LIMIT);
    const { items, nextAfter } = pageOf(await handlers.page(Number(ctx.query.after ?? 0), limit + 1), limit);
    if (nextAfter !== undefined) ctx.set('Link', nextLink(limit, nextAfter));
    ctx.body = items.map(productJson);
  });
  router.get('/:id', async (ctx) => answer(ctx, await handlers.getOne(Number(ctx.params.id))));
  router.post('/', bodyParser(), async (ctx) => {
    const body = toBodyProduct(ctx.request.body);
    if (!body) return void (ctx.status = 400);
    const product = await handlers.create(body);
    ctx.set('Location', `/api/products/${product.id}`);
    answer(ctx, product, 201);
  });
  router.put('/:id', bodyParser(), async (ctx) => {
    const body = toBodyProduct(ctx.request.body);
    if (!body) return void (ctx.status = 400);
    answer(ctx, await handlers.update(Number(ctx.params.id), body));
  });
  router.post('/:id/stock-adjustments', bodyParser(), async (ctx) => {
    const { delta } = ctx.request.body as { delta: number };
    answer(ctx, await handlers.adjust(Number(ctx.params.id), Number(delta)));
  });
  const app = new Koa();
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** Listens on PORT (any free one by default) and says where on stdout, as every target does for the harness. */
export function listenKoa(app: Koa): void {
  const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    server.keepAliveTimeout = 5000;
    console.log(JSON.stringify({ message: 'listening', port: (server.address() as { port: number }).port }));
  });
  process.once('SIGTERM', () => process.exit(0));
}
