import Router from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { type BodyProduct, toBodyProduct } from './raw-http';

/**
 * Koa + @koa/router + koa-bodyparser over a Map, the same routes and JSON as
 * the service: the framework's own ceiling, with none of our layers.
 */
interface Stored extends BodyProduct {
  id: number;
  version: number;
}
const products = new Map<number, Stored>();
let lastId = 0;
const json = ({ id, name, description, price, quantityInStock }: Stored) => ({ id, name, description, price, quantityInStock });

const router = new Router({ prefix: '/api/products' });
router.get('/', (ctx) => {
  const after = Number(ctx.query.after ?? 0);
  const limit = Number(ctx.query.limit ?? 100);
  const page = [];
  for (const product of products.values()) {
    if (page.length === limit) break;
    if (product.id > after) page.push(json(product));
  }
  ctx.body = page;
});
router.get('/:id', (ctx) => {
  const product = products.get(Number(ctx.params.id));
  if (!product) return void (ctx.status = 404);
  ctx.body = json(product);
});
router.post('/', bodyParser(), (ctx) => {
  const body = toBodyProduct(ctx.request.body);
  if (!body) return void (ctx.status = 400);
  const product = { ...body, id: ++lastId, version: 1 };
  products.set(product.id, product);
  ctx.status = 201;
  ctx.set('Location', `/api/products/${product.id}`);
  ctx.body = json(product);
});
router.put('/:id', bodyParser(), (ctx) => {
  const id = Number(ctx.params.id);
  const current = products.get(id);
  const body = toBodyProduct(ctx.request.body);
  if (!current) return void (ctx.status = 404);
  if (!body) return void (ctx.status = 400);
  const product = { ...body, id, version: current.version + 1 };
  products.set(id, product);
  ctx.body = json(product);
});
router.post('/:id/stock-adjustments', bodyParser(), (ctx) => {
  const current = products.get(Number(ctx.params.id));
  if (!current) return void (ctx.status = 404);
  const next = current.quantityInStock + Number((ctx.request.body as { delta: number }).delta);
  if (next < 0 || next > 2147483647) return void (ctx.status = 409);
  const product = { ...current, quantityInStock: next, version: current.version + 1 };
  products.set(product.id, product);
  ctx.body = json(product);
});

const app = new Koa();
app.use(router.routes());
app.use(router.allowedMethods());
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  server.keepAliveTimeout = 5000;
  console.log(JSON.stringify({ message: 'listening', port: (server.address() as { port: number }).port }));
});
process.once('SIGTERM', () => process.exit(0));
