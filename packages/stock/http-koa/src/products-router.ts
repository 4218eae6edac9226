import { Scopes } from '@commerce/contracts';
import Router from '@koa/router';
import { ValidationError } from '@platform/kernel';
import { type AccessControl, decodeInteger, idempotencyKeyOf, INT32_MAX, jsonObjectBody, logWith, type Logger, markReplayed, queryParameters, requestIdOf, singleQueryValue } from '@platform/koa';
import {
  type AdjustStock,
  type CreateProduct,
  type DeleteProduct,
  type GetProduct,
  type GetProducts,
  type ListProducts,
  type ListStockMovements,
  MAX_BATCH_IDS,
  MAX_PAGE_SIZE,
  type StreamProducts,
  type UpdateProduct,
} from '@stock/application';
import { InsufficientStockError, type Product, ProductNotFoundError, StockLimitExceededError } from '@stock/domain';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { callerOf } from './caller';
import { etagOf, matches, parsePreconditions } from './etag';
import { movementJson, productJson } from './product-json';
import { decodeProductBody } from './product-codec';
import type { AdjustmentOutcome, StockMetrics } from './stock-metrics';
import { decodeStockAdjustmentBody } from './stock-adjustment-codec';

export interface ProductUseCases {
  readonly createProduct: CreateProduct;
  readonly getProduct: GetProduct;
  readonly getProducts: GetProducts;
  readonly listStockMovements: ListStockMovements;
  readonly listProducts: ListProducts;
  readonly streamProducts: StreamProducts;
  readonly updateProduct: UpdateProduct;
  readonly deleteProduct: DeleteProduct;
  readonly adjustStock: AdjustStock;
}

export interface ProductsRouterOptions {
  readonly useCases: ProductUseCases;
  /** Reads need stock:read; product writes and stock adjustments stock:write. */
  readonly access: AccessControl;
  readonly logger: Logger;
  readonly metrics?: StockMetrics;
}

export const BODY_LIMIT = '64kb';
const DEFAULT_PAGE_SIZE = 100;

/**
 * Streams every product as one JSON array, a batch at a time: memory stays flat
 * however many there are. The first batch is read before the 200 is committed,
 * so a database that fails at once still gets a proper problem response; a
 * failure later can only cut the stream, and is logged.
 */
async function streamAll(streamProducts: StreamProducts, logger: Logger, ctx: Context): Promise<Readable> {
  const batches = streamProducts.execute();
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

/** `ids=3,1,2`: at most MAX_BATCH_IDS product ids, each a positive int32. */
function decodeIds(raw: string): number[] {
  const parts = raw.split(',');
  if (parts.length > MAX_BATCH_IDS) throw new ValidationError({ ids: [`must list at most ${MAX_BATCH_IDS} ids`] });
  return parts.map((part) => {
    try {
      return decodeInteger('ids', part.trim(), 1);
    } catch {
      throw new ValidationError({ ids: [`must be a comma-separated list of integers from 1 to ${INT32_MAX}`] });
    }
  });
}

function adjustmentOutcome(error: unknown): AdjustmentOutcome {
  if (error instanceof InsufficientStockError) return 'insufficient_stock';
  if (error instanceof StockLimitExceededError) return 'limit_exceeded';
  if (error instanceof ProductNotFoundError) return 'not_found';
  if (error instanceof ValidationError) return 'invalid';
  return 'error';
}

/** A written product as the response answers it: its status, ETag and JSON. */
function answer(ctx: Context, status: number, product: Product): void {
  ctx.status = status;
  ctx.set('ETag', etagOf(product));
  ctx.body = productJson(product);
}

export function productsRouter({ useCases, access, logger, metrics }: ProductsRouterOptions): Router {
  const { createProduct, getProduct, getProducts, listProducts, listStockMovements, streamProducts, updateProduct, deleteProduct, adjustStock } = useCases;
  const router = new Router({ prefix: '/api/products' });
  const read = access.require(Scopes.stock.read);
  const write = access.require(Scopes.stock.write);
  router.use(access.authenticate);
  const jsonBody = jsonObjectBody(BODY_LIMIT);
  const pathId = (ctx: Context) => decodeInteger('id', ctx.params.id, 1);
  const noQuery = queryParameters();

  router.get('/', read, queryParameters('limit', 'after', 'ids'), async (ctx) => {
    const limit = singleQueryValue(ctx, 'limit');
    const after = singleQueryValue(ctx, 'after');
    const ids = singleQueryValue(ctx, 'ids');
    if (ids !== undefined) {
      if (limit !== undefined || after !== undefined) throw new ValidationError({ ids: ['cannot be combined with limit or after'] });
      ctx.body = (await getProducts.execute(decodeIds(ids))).map(productJson);
      return;
    }
    if (limit === undefined && after === undefined) {
      const stream = await streamAll(streamProducts, logger, ctx);
      ctx.type = 'application/json';
      ctx.body = stream;
      return;
    }
    const query = {
      limit: limit === undefined ? DEFAULT_PAGE_SIZE : decodeInteger('limit', limit, 1, MAX_PAGE_SIZE),
      after: after === undefined ? 0 : decodeInteger('after', after, 0, INT32_MAX),
    };
    const page = await listProducts.execute(query);
    if (page.nextAfter !== undefined) {
      ctx.set('Link', `</api/products?limit=${query.limit}&after=${page.nextAfter}>; rel="next"`);
    }
    ctx.body = page.items.map(productJson);
  });

  router.get('/:id', read, noQuery, async (ctx) => {
    const product = await getProduct.execute(pathId(ctx));
    ctx.set('ETag', etagOf(product));
    const ifNoneMatch = ctx.get('If-None-Match');
    if (ifNoneMatch && matches(parsePreconditions(ifNoneMatch, 'If-None-Match', false), product)) {
      ctx.status = 304;
      return;
    }
    ctx.body = productJson(product);
  });

  router.get('/:id/stock-movements', read, queryParameters('limit', 'after'), async (ctx) => {
    const id = pathId(ctx);
    const limit = singleQueryValue(ctx, 'limit');
    const after = singleQueryValue(ctx, 'after');
    const query = {
      limit: limit === undefined ? DEFAULT_PAGE_SIZE : decodeInteger('limit', limit, 1, MAX_PAGE_SIZE),
      after: after === undefined ? 0 : decodeInteger('after', after, 0, Number.MAX_SAFE_INTEGER),
    };
    const page = await listStockMovements.execute(id, query, callerOf(ctx));
    if (page.nextAfter !== undefined) ctx.set('Link', `</api/products/${id}/stock-movements?limit=${query.limit}&after=${page.nextAfter}>; rel="next"`);
    ctx.body = page.items.map(movementJson);
  });

  router.post('/', write, noQuery, jsonBody, async (ctx) => {
    const { id, details } = decodeProductBody(ctx.request.body as Record<string, unknown>);
    if (id !== 0) throw new ValidationError({ id: ['must be absent or 0: the server assigns ids'] });
    const idempotency = idempotencyKeyOf(ctx, 'create-product', { ...details, price: details.price.cents });
    const { value: product, replayed } = await createProduct.execute(details, { ...(idempotency && { idempotency }), requestId: requestIdOf(ctx), caller: callerOf(ctx) });
    if (!replayed) logWith(ctx, { event: 'product created', productId: product.id });
    markReplayed(ctx, replayed);
    ctx.set('Location', `/api/products/${product.id}`);
    answer(ctx, 201, product);
  });

  router.put('/:id', write, noQuery, jsonBody, async (ctx) => {
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
    answer(ctx, 200, await updateProduct.execute(id, body.details, { ...(expectedVersion !== undefined && { expectedVersion }), requestId: requestIdOf(ctx), caller: callerOf(ctx) }));
  });

  router.delete('/:id', write, noQuery, async (ctx) => {
    await deleteProduct.execute(pathId(ctx));
    ctx.status = 204;
  });

  router.post('/:id/stock-adjustments', write, noQuery, jsonBody, async (ctx) => {
    try {
      const id = pathId(ctx);
      const adjustment = decodeStockAdjustmentBody(ctx.request.body as Record<string, unknown>);
      const idempotency = idempotencyKeyOf(ctx, 'adjust-stock', { delta: adjustment.delta, ...(adjustment.reason !== undefined && { reason: adjustment.reason }) });
      const { value: product, replayed } = await adjustStock.execute(id, adjustment, { ...(idempotency && { idempotency }), requestId: requestIdOf(ctx), caller: callerOf(ctx) });
      if (!replayed) {
        logWith(ctx, { event: 'stock adjusted', productId: id, delta: adjustment.delta, reason: adjustment.reason, quantityInStock: product.quantityInStock });
      }
      metrics?.countAdjustment(replayed ? 'replayed' : 'adjusted');
      markReplayed(ctx, replayed);
      answer(ctx, 200, product);
    } catch (error) {
      metrics?.countAdjustment(adjustmentOutcome(error));
      throw error;
    }
  });

  return router;
}
