import Router from '@koa/router';
import {
  type AdjustStock,
  type CreateProduct,
  type DeleteProduct,
  type GetProduct,
  type IdempotencyStore,
  InsufficientStockError,
  INT32_MAX,
  type ListProducts,
  MAX_PAGE_SIZE,
  type Product,
  ProductNotFoundError,
  StockLimitExceededError,
  type UpdateProduct,
  ValidationError,
} from '@stock/domain';
import type { Context, Next } from 'koa';
import bodyParser from 'koa-bodyparser';
import { Readable } from 'node:stream';
import { decodeInteger } from './body-codec';
import { etagOf, matches, parsePreconditions } from './etag';
import { respondIdempotently } from './idempotency';
import type { Logger } from './logger';
import type { AdjustmentOutcome, StockMetrics } from './metrics';
import { decodeProductBody } from './product-codec';
import { productJson } from './product-json';
import { requestIdOf } from './request-context';
import { RequestError } from './request-error';
import { decodeStockAdjustmentBody } from './stock-adjustment-codec';

export interface ProductUseCases {
  readonly createProduct: CreateProduct;
  readonly getProduct: GetProduct;
  readonly listProducts: ListProducts;
  readonly updateProduct: UpdateProduct;
  readonly deleteProduct: DeleteProduct;
  readonly adjustStock: AdjustStock;
}

export interface ProductsRouterOptions {
  readonly useCases: ProductUseCases;
  readonly idempotency: IdempotencyStore;
  readonly logger: Logger;
  readonly metrics?: StockMetrics;
}

export const BODY_LIMIT = '64kb';
const DEFAULT_PAGE_SIZE = 100;

const parseJson = bodyParser({ enableTypes: ['json'], jsonLimit: BODY_LIMIT, strict: true });

/** POST and PUT take exactly one JSON object, at most 64 KiB. */
async function jsonObjectBody(ctx: Context, next: Next): Promise<void> {
  if (!ctx.request.length && !ctx.get('transfer-encoding')) throw new RequestError('BODY_REQUIRED', 'A JSON object body is required.');
  if (!ctx.is('application/json')) throw new RequestError('UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.');
  let parsed = false;
  try {
    await parseJson(ctx, async () => {
      parsed = true;
      const body: unknown = ctx.request.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new RequestError('BODY_NOT_AN_OBJECT', 'The body must be a JSON object.');
      }
      await next();
    });
  } catch (error) {
    // Whatever stops the body from being read (a corrupt gzip stream, say) is the client's body's fault, not a 500.
    const status = (error as { status?: unknown }).status;
    if (!parsed && !(typeof status === 'number' && status >= 400 && status < 500)) {
      throw new RequestError('MALFORMED_JSON', 'The request body could not be read as JSON.');
    }
    throw error;
  }
}

function singleQueryValue(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new ValidationError({ [name]: ['must be given at most once'] });
  return value;
}

/**
 * Streams every product as one JSON array, a batch at a time: memory stays flat
 * however many there are. The first batch is read before the 200 is committed,
 * so a database that fails at once still gets a proper problem response; a
 * failure later can only cut the stream, and is logged.
 */
async function streamAll(listProducts: ListProducts, logger: Logger, ctx: Context): Promise<Readable> {
  const batches = listProducts.all();
  const first = await batches.next();
  const json = (batch: Product[]) => batch.map((product) => JSON.stringify(productJson(product))).join(',');
  async function* chunks() {
    yield '[';
    if (!first.done) {
      yield json(first.value);
      for await (const batch of batches) yield `,${json(batch)}`;
    }
    yield ']';
  }
  const stream = Readable.from(chunks(), { objectMode: false });
  stream.on('error', (error) => logger.error('product stream failed', { requestId: requestIdOf(ctx), error: String(error) }));
  return stream;
}

function adjustmentOutcome(error: unknown): AdjustmentOutcome {
  if (error instanceof InsufficientStockError) return 'insufficient_stock';
  if (error instanceof StockLimitExceededError) return 'limit_exceeded';
  if (error instanceof ProductNotFoundError) return 'not_found';
  if (error instanceof ValidationError) return 'invalid';
  return 'error';
}

export function productsRouter({ useCases, idempotency, logger, metrics }: ProductsRouterOptions): Router {
  const { createProduct, getProduct, listProducts, updateProduct, deleteProduct, adjustStock } = useCases;
  const router = new Router({ prefix: '/api/products' });
  const pathId = (ctx: Context) => decodeInteger('id', ctx.params.id, 1);
  const written = (status: number, product: Product, headers: Record<string, string> = {}) => ({
    status,
    headers: { ETag: etagOf(product), ...headers },
    body: JSON.stringify(productJson(product)),
  });

  router.get('/', async (ctx) => {
    const limit = singleQueryValue(ctx, 'limit');
    const after = singleQueryValue(ctx, 'after');
    if (limit === undefined && after === undefined) {
      const stream = await streamAll(listProducts, logger, ctx);
      ctx.type = 'application/json';
      ctx.body = stream;
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
    const product = await getProduct.execute(pathId(ctx));
    ctx.set('ETag', etagOf(product));
    const ifNoneMatch = ctx.get('If-None-Match');
    if (ifNoneMatch && matches(parsePreconditions(ifNoneMatch, 'If-None-Match', false), product)) {
      ctx.status = 304;
      return;
    }
    ctx.body = productJson(product);
  });

  router.post('/', jsonObjectBody, async (ctx) => {
    const { id, details } = decodeProductBody(ctx.request.body as Record<string, unknown>);
    if (id !== 0) throw new ValidationError({ id: ['must be absent or 0: the server assigns ids'] });
    await respondIdempotently(ctx, idempotency, 'POST /api/products', { ...details, price: details.price.cents }, async () => {
      const product = await createProduct.execute(details);
      logger.info('product created', { productId: product.id, requestId: requestIdOf(ctx) });
      return written(201, product, { Location: `/api/products/${product.id}` });
    });
  });

  router.put('/:id', jsonObjectBody, async (ctx) => {
    const id = pathId(ctx);
    const body = decodeProductBody(ctx.request.body as Record<string, unknown>);
    if (body.id !== 0 && body.id !== id) throw new ValidationError({ id: [`must be absent or equal to the id in the path (${id})`] });
    const ifMatch = ctx.get('If-Match');
    let expectedVersion: number | undefined;
    if (ifMatch) {
      const preconditions = parsePreconditions(ifMatch, 'If-Match', true);
      if (preconditions.kind === 'versions') {
        // One tag is the usual case; with several, the write is conditional on whichever the product is at now.
        const current = preconditions.versions.length === 1 ? undefined : await getProduct.execute(id);
        expectedVersion = current && matches(preconditions, current) ? current.version : (preconditions.versions[0] ?? 0);
      }
    }
    const product = await updateProduct.execute(id, body.details, expectedVersion);
    ctx.set('ETag', etagOf(product));
    ctx.body = productJson(product);
  });

  router.delete('/:id', async (ctx) => {
    await deleteProduct.execute(pathId(ctx));
    ctx.status = 204;
  });

  router.post('/:id/stock-adjustments', jsonObjectBody, async (ctx) => {
    try {
      const id = pathId(ctx);
      const adjustment = decodeStockAdjustmentBody(ctx.request.body as Record<string, unknown>);
      await respondIdempotently(ctx, idempotency, 'POST /api/products/{id}/stock-adjustments', adjustment, async () => {
        const product = await adjustStock.execute(id, adjustment);
        logger.info('stock adjusted', { productId: id, delta: adjustment.delta, reason: adjustment.reason, quantityInStock: product.quantityInStock, requestId: requestIdOf(ctx) });
        return written(200, product);
      });
      metrics?.countAdjustment(ctx.response.get('Idempotent-Replayed') ? 'replayed' : 'adjusted');
    } catch (error) {
      metrics?.countAdjustment(adjustmentOutcome(error));
      throw error;
    }
  });

  return router;
}
