import Router from '@koa/router';
import { type CreateProduct, type DeleteProduct, type GetProduct, INT32_MAX, type ListProducts, MAX_PAGE_SIZE, type Product, type UpdateProduct, ValidationError } from '@stock/domain';
import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { Readable } from 'node:stream';
import type { Logger } from './logger';
import { decodeInteger, decodeProductBody } from './product-codec';
import { productJson } from './product-json';
import { RequestError } from './request-error';

export interface ProductUseCases {
  readonly createProduct: CreateProduct;
  readonly getProduct: GetProduct;
  readonly listProducts: ListProducts;
  readonly updateProduct: UpdateProduct;
  readonly deleteProduct: DeleteProduct;
}

export const BODY_LIMIT = '64kb';
const DEFAULT_PAGE_SIZE = 100;

const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT, strict: true });

/** POST and PUT take exactly one JSON object, at most 64 KiB. */
async function jsonObjectBody(ctx: Context, next: Next): Promise<void> {
  if (!ctx.request.length && !ctx.get('transfer-encoding')) throw new RequestError('BODY_REQUIRED', 'A JSON object body is required.');
  if (!ctx.is('application/json', 'application/*+json')) throw new RequestError('UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.');
  await parseJson(ctx, async () => {
    const body: unknown = ctx.request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new RequestError('BODY_NOT_AN_OBJECT', 'The body must be a JSON object.');
    }
    await next();
  });
}

function singleQueryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new ValidationError({ [name]: ['must be given at most once'] });
  return value;
}

/** Streams every product as one JSON array, a batch at a time: memory stays flat however many there are. */
function streamAll(listProducts: ListProducts): Readable {
  async function* chunks() {
    let first = true;
    yield '[';
    for await (const batch of listProducts.all()) {
      const json = batch.map((product: Product) => JSON.stringify(productJson(product))).join(',');
      yield first ? json : `,${json}`;
      first = false;
    }
    yield ']';
  }
  return Readable.from(chunks(), { objectMode: false });
}

export function productsRouter(useCases: ProductUseCases, logger: Logger): Router {
  const { createProduct, getProduct, listProducts, updateProduct, deleteProduct } = useCases;
  const router = new Router({ prefix: '/api/products' });
  const pathId = (ctx: Context) => decodeInteger('id', ctx.params.id, 1);

  router.get('/', async (ctx) => {
    const limit = singleQueryValue(ctx, 'limit');
    const after = singleQueryValue(ctx, 'after');
    if (limit === undefined && after === undefined) {
      ctx.type = 'application/json';
      ctx.body = streamAll(listProducts);
      return;
    }
    const query = {
      limit: limit === undefined ? DEFAULT_PAGE_SIZE : decodeInteger('limit', limit, 1, MAX_PAGE_SIZE),
      after: after === undefined ? 0 : decodeInteger('after', after, 0, INT32_MAX),
    };
    const page = await listProducts.page(query);
    if (page.nextAfter !== undefined) {
      ctx.set('Link', `</api/products?limit=${query.limit}&after=${page.nextAfter}>; rel="next"`);
    }
    ctx.body = page.items.map(productJson);
  });

  router.get('/:id', async (ctx) => {
    ctx.body = productJson(await getProduct.execute(pathId(ctx)));
  });

  router.post('/', jsonObjectBody, async (ctx) => {
    const { id, details } = decodeProductBody(ctx.request.body as Record<string, unknown>);
    if (id !== 0) throw new ValidationError({ id: ['must be absent or 0: the server assigns ids'] });
    const product = await createProduct.execute(details);
    logger.info('product created', { productId: product.id });
    ctx.status = 201;
    ctx.set('Location', `/api/products/${product.id}`);
    ctx.body = productJson(product);
  });

  router.put('/:id', jsonObjectBody, async (ctx) => {
    const id = pathId(ctx);
    const body = decodeProductBody(ctx.request.body as Record<string, unknown>);
    if (body.id !== 0 && body.id !== id) throw new ValidationError({ id: [`must be absent or equal to the id in the path (${id})`] });
    ctx.body = productJson(await updateProduct.execute(id, body.details));
  });

  router.delete('/:id', async (ctx) => {
    await deleteProduct.execute(pathId(ctx));
    ctx.status = 204;
  });

  return router;
}
