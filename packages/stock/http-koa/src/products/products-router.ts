import { Scopes } from '@commerce/contracts';
import Router, { type RouterContext } from '@koa/router';
import { Invalid, ValidationError } from '@platform/kernel';
import {
  type AccessControl,
  decodeInteger,
  idempotencyKeyOf,
  INT32_MAX,
  jsonObjectBody,
  logWith,
  type Logger,
  markReplayed,
  queryParameters,
  requestIdOf,
  singleQueryValue,
} from '@platform/http';
import {
  type AdjustStock,
  type ChangeStockState,
  type CreateProduct,
  DEFAULT_PAGE_SIZE,
  type DeleteProduct,
  type GetProduct,
  type GetProducts,
  type ListProducts,
  type ListStockMovements,
  type Locations,
  MAX_BATCH_IDS,
  MAX_PAGE_SIZE,
  type SearchProducts,
  type SearchProductsInput,
  type StreamProducts,
  type UpdateProduct,
} from '@stock/application';
import {
  InsufficientStockError,
  LocationNotFoundError,
  Money,
  type MovementPageQuery,
  PRODUCT_SORTS,
  type Product,
  ProductNotFoundError,
  type ProductSort,
  type StockState,
  StockLimitExceededError,
} from '@stock/domain';
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import { callerOf } from '../caller';
import { etagOf, matches, parsePreconditions } from './etag';
import { movementJson, productJson, stockLevelJson } from './product-json';
import { decodeProductBody } from './product-codec';
import type { AdjustmentOutcome, StockMetrics } from '../stock-metrics';
import { decodeStockAdjustmentBody, decodeStockStateChangeBody } from './stock-adjustment-codec';

export interface ProductUseCases {
  readonly createProduct: CreateProduct;
  readonly getProduct: GetProduct;
  readonly getProducts: GetProducts;
  readonly listStockMovements: ListStockMovements;
  readonly listProducts: ListProducts;
  readonly streamProducts: StreamProducts;
  readonly searchProducts: SearchProducts;
  readonly updateProduct: UpdateProduct;
  readonly deleteProduct: DeleteProduct;
  readonly adjustStock: AdjustStock;
  readonly changeStockState: ChangeStockState;
  /** For a product's stock levels at the locations. */
  readonly locations: Locations;
}

export interface ProductsRouterOptions {
  readonly useCases: ProductUseCases;
  /** Reads need stock:read; product writes and stock adjustments stock:write. */
  readonly access: AccessControl;
  readonly logger: Logger;
  readonly metrics?: StockMetrics;
}

export const BODY_LIMIT = '64kb';

/**
 * Streams every product as one JSON array, a batch at a time: memory stays flat
 * however many there are. The first batch is read before the 200 is committed,
 * so a database that fails at once still gets a proper problem response; a
 * failure later can only cut the stream, and is logged.
 */
async function streamAll(
  streamProducts: StreamProducts,
  logger: Logger,
  ctx: Context,
  stockState: StockState | undefined,
): Promise<Readable> {
  const batches = streamProducts.execute(undefined, stockState);
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
  stream.on('error', (error) =>
    logger.error('product stream failed', { requestId: requestIdOf(ctx), error: String(error) }),
  );
  return stream;
}

/** Every stock state, once: a state added to StockState without a place here does not compile. */
const STOCK_STATES: Readonly<Record<StockState, true>> = { in: true, low: true, out: true };

/** `stockState=low`: one of the stock states, or undefined when absent. */
function decodeStockState(raw: string | undefined): StockState | undefined {
  if (raw === undefined) return undefined;
  if (!Object.hasOwn(STOCK_STATES, raw))
    throw new ValidationError({ stockState: [`must be one of ${Object.keys(STOCK_STATES).join(', ')}`] });
  return raw as StockState;
}

/** `ids=3,1,2`: at most MAX_BATCH_IDS product ids, each a positive int32. */
function decodeIds(raw: string): number[] {
  const parts = raw.split(',');
  if (parts.length > MAX_BATCH_IDS) throw new ValidationError({ ids: [`must list at most ${MAX_BATCH_IDS} ids`] });
  return parts.map((part) => {
    try {
      return decodeInteger('ids', part, 1);
    } catch {
      throw new ValidationError({ ids: [`must be a comma-separated list of integers from 1 to ${INT32_MAX}`] });
    }
  });
}

function adjustmentOutcome(error: unknown): AdjustmentOutcome {
  if (error instanceof InsufficientStockError) return 'insufficient_stock';
  if (error instanceof StockLimitExceededError) return 'limit_exceeded';
  if (error instanceof ProductNotFoundError || error instanceof LocationNotFoundError) return 'not_found';
  if (error instanceof ValidationError) return 'invalid';
  return 'error';
}

/** A written product as the response answers it: its status, ETag and JSON. */
function answer(ctx: Context, status: number, product: Product): void {
  ctx.status = status;
  ctx.set('ETag', etagOf(product));
  ctx.body = productJson(product);
}

/** A route's last middleware: named, so a stack trace says which route it was. */
type Handler = (ctx: Context) => Promise<void>;

function pathId(ctx: Context): number {
  return decodeInteger('id', (ctx.params as RouterContext['params']).id, 1);
}

interface PageQuery {
  readonly limit: number;
  readonly after: number;
}

/** `limit` and `after` of a paged list: the default page, or the page asked for; `after` at most `maxAfter`. */
function pageQuery(limit: string | undefined, after: string | undefined, maxAfter: number): PageQuery {
  return {
    limit: limit === undefined ? DEFAULT_PAGE_SIZE : decodeInteger('limit', limit, 1, MAX_PAGE_SIZE),
    after: after === undefined ? 0 : decodeInteger('after', after, 0, maxAfter),
  };
}

/** `sort=-price`: one of the sorts, or undefined when absent. */
function decodeSort(raw: string | undefined): ProductSort | undefined {
  if (raw === undefined) return undefined;
  if (!(PRODUCT_SORTS as readonly string[]).includes(raw))
    throw new ValidationError({ sort: [`must be one of ${PRODUCT_SORTS.join(', ')}`] });
  return raw as ProductSort;
}

const DECIMAL = /^\d+(\.\d{1,2})?$/;

/** `minPrice=10.5`: an amount as the product's price takes it, or undefined when absent. */
function decodePrice(parameter: string, raw: string | undefined): Money | undefined {
  if (raw === undefined) return undefined;
  const price = DECIMAL.test(raw)
    ? Money.parse(Number(raw))
    : new Invalid('must be a decimal number with at most 2 decimal places');
  if (price instanceof Invalid) throw new ValidationError({ [parameter]: [price.message] });
  return price;
}

/** The parameters that make GET / a search; `stockState` alone keeps the list (or stream) in id order it always was. */
const SEARCH_PARAMETERS = ['q', 'minPrice', 'maxPrice', 'locationId', 'sort', 'cursor'] as const;

/** A search's parameters as the use case takes them, each bad value a 400 naming it. */
function searchInput(ctx: Context, stockState: StockState | undefined): SearchProductsInput {
  const value = (name: string) => singleQueryValue(ctx, name);
  const [q, locationId, sort, cursor, limit] = ['q', 'locationId', 'sort', 'cursor', 'limit'].map(value);
  const [minPrice, maxPrice] = [decodePrice('minPrice', value('minPrice')), decodePrice('maxPrice', value('maxPrice'))];
  const decodedSort = decodeSort(sort);
  return {
    ...(q !== undefined && { q }),
    ...(minPrice && { minPrice }),
    ...(maxPrice && { maxPrice }),
    ...(stockState && { stockState }),
    ...(locationId !== undefined && { locationId: decodeInteger('locationId', locationId, 1) }),
    ...(decodedSort && { sort: decodedSort }),
    ...(cursor !== undefined && { cursor }),
    limit: limit === undefined ? DEFAULT_PAGE_SIZE : decodeInteger('limit', limit, 1, MAX_PAGE_SIZE),
  };
}

/** The next page's link: the same search, its cursor, and nothing else. */
function nextSearchLink(input: SearchProductsInput, cursor: string): string {
  const { q, minPrice, maxPrice, stockState, locationId, sort, limit } = input;
  const query = new URLSearchParams();
  if (q !== undefined) query.set('q', q);
  if (minPrice) query.set('minPrice', minPrice.toString());
  if (maxPrice) query.set('maxPrice', maxPrice.toString());
  if (stockState) query.set('stockState', stockState);
  if (locationId !== undefined) query.set('locationId', String(locationId));
  if (sort) query.set('sort', sort);
  query.set('limit', String(limit));
  query.set('cursor', cursor);
  return `</api/products?${query.toString()}>; rel="next"`;
}

/** Refuses `parameter` with any of `others` that the request also gives. */
function alone(ctx: Context, parameter: string, others: readonly string[], why: string): void {
  const given = others.filter((name) => ctx.query[name] !== undefined);
  if (given.length > 0)
    throw new ValidationError({ [parameter]: [`cannot be combined with ${given.join(', ')}: ${why}`] });
}

/**
 * GET /: the products of `ids`; the product of a `sku` (a list of zero or one); a search (`q`, `minPrice`,
 * `maxPrice`, `locationId`, `sort` or `cursor`, with `stockState` and `limit`) paged by cursor; a page in id order
 * with `limit` or `after`; or else every product as one stream. `stockState` alone filters the last two.
 */
function listProductsHandler(useCases: ProductUseCases, logger: Logger): Handler {
  return async function listProducts(ctx) {
    const names = Object.keys(ctx.query);
    const limit = singleQueryValue(ctx, 'limit');
    const after = singleQueryValue(ctx, 'after');
    const ids = singleQueryValue(ctx, 'ids');
    const sku = singleQueryValue(ctx, 'sku');
    const stockState = decodeStockState(singleQueryValue(ctx, 'stockState'));
    const searching = SEARCH_PARAMETERS.some((name) => ctx.query[name] !== undefined);
    if (ids !== undefined) {
      alone(
        ctx,
        'ids',
        names.filter((name) => name !== 'ids'),
        'it answers those products',
      );
      ctx.body = (await useCases.getProducts.execute(decodeIds(ids))).map(productJson);
    } else if (sku !== undefined) {
      alone(
        ctx,
        'sku',
        names.filter((name) => name !== 'sku'),
        'it answers the one product with that SKU',
      );
      ctx.body = (await useCases.getProducts.bySku(sku)).map(productJson);
    } else if (searching) {
      alone(ctx, 'after', ['after'], 'a search pages by cursor');
      const input = searchInput(ctx, stockState);
      const page = await useCases.searchProducts.execute(input);
      if (page.nextCursor !== undefined) ctx.set('Link', nextSearchLink(input, page.nextCursor));
      ctx.body = page.items.map(productJson);
    } else if (limit === undefined && after === undefined) {
      const stream = await streamAll(useCases.streamProducts, logger, ctx, stockState);
      ctx.type = 'application/json';
      ctx.body = stream;
    } else {
      const query = { ...pageQuery(limit, after, INT32_MAX), ...(stockState && { stockState }) };
      const page = await useCases.listProducts.execute(query);
      if (page.nextAfter !== undefined) {
        const state = stockState ? `&stockState=${stockState}` : '';
        ctx.set('Link', `</api/products?limit=${query.limit}&after=${page.nextAfter}${state}>; rel="next"`);
      }
      ctx.body = page.items.map(productJson);
    }
  };
}

/** GET /:id, answering 304 when If-None-Match names the product's current version. */
function getProductHandler(useCases: ProductUseCases): Handler {
  return async function getProduct(ctx) {
    const product = await useCases.getProduct.execute(pathId(ctx));
    ctx.set('ETag', etagOf(product));
    const ifNoneMatch = ctx.get('If-None-Match');
    if (ifNoneMatch && matches(parsePreconditions(ifNoneMatch, 'If-None-Match', false), product)) {
      ctx.status = 304;
      return;
    }
    ctx.body = productJson(product);
  };
}

/**
 * The ledger's page asked for: oldest first past `after` (`order=asc`, the default), or newest first before `before`
 * (`order=desc`); each order takes only its own keyset.
 */
function movementPageQuery(ctx: Context): MovementPageQuery {
  const [order, limit, after, before] = ['order', 'limit', 'after', 'before'].map((name) =>
    singleQueryValue(ctx, name),
  );
  if (order !== undefined && order !== 'asc' && order !== 'desc')
    throw new ValidationError({ order: ['must be one of asc, desc'] });
  if (order === 'desc') {
    if (after !== undefined)
      throw new ValidationError({ after: ['pages oldest first only: newest first takes before'] });
    const { limit: size } = pageQuery(limit, undefined, 0);
    return {
      order,
      limit: size,
      ...(before !== undefined && { before: decodeInteger('before', before, 1, Number.MAX_SAFE_INTEGER) }),
    };
  }
  if (before !== undefined) throw new ValidationError({ before: ['pages newest first only (order=desc)'] });
  return pageQuery(limit, after, Number.MAX_SAFE_INTEGER);
}

/** GET /:id/stock-movements: a page of the product's ledger, oldest or newest first. */
function listStockMovementsHandler(useCases: ProductUseCases): Handler {
  return async function listStockMovements(ctx) {
    const id = pathId(ctx);
    const query = movementPageQuery(ctx);
    const page = await useCases.listStockMovements.execute(id, query, callerOf(ctx));
    if (page.next !== undefined) {
      const keyset = query.order === 'desc' ? `order=desc&limit=${query.limit}&before=` : `limit=${query.limit}&after=`;
      ctx.set('Link', `</api/products/${id}/stock-movements?${keyset}${page.next}>; rel="next"`);
    }
    ctx.body = page.items.map(movementJson);
  };
}

/** GET /:id/stock-levels: the product's stock at each location it has a level at. */
function listStockLevelsHandler(useCases: ProductUseCases): Handler {
  return async function listStockLevels(ctx) {
    ctx.body = (await useCases.locations.levelsOf(pathId(ctx))).map(stockLevelJson);
  };
}

/** POST /: a new product, once per Idempotency-Key. */
function createProductHandler(useCases: ProductUseCases): Handler {
  return async function createProduct(ctx) {
    const { id, details } = decodeProductBody(ctx.request.body as Record<string, unknown>);
    if (id !== 0) throw new ValidationError({ id: ['must be absent or 0: the server assigns ids'] });
    const idempotency = idempotencyKeyOf(ctx, 'create-product', { ...details, price: details.price.cents });
    const options = { ...(idempotency && { idempotency }), requestId: requestIdOf(ctx), caller: callerOf(ctx) };
    const { value: product, replayed } = await useCases.createProduct.execute(details, options);
    if (!replayed) logWith(ctx, { event: 'product created', productId: product.id });
    markReplayed(ctx, replayed);
    ctx.set('Location', `/api/products/${product.id}`);
    answer(ctx, 201, product);
  };
}

/**
 * The version an If-Match asks the write to be conditional on, if any. One tag is the usual case;
 * with several, the write is conditional on whichever the product is at now.
 */
async function expectedVersionOf(ctx: Context, id: number, getProduct: GetProduct): Promise<number | undefined> {
  const ifMatch = ctx.get('If-Match');
  if (!ifMatch) return undefined;
  const preconditions = parsePreconditions(ifMatch, 'If-Match', true);
  if (preconditions.kind !== 'versions') return undefined;
  const current = preconditions.versions.length === 1 ? undefined : await getProduct.execute(id);
  return current && matches(preconditions, current) ? current.version : (preconditions.versions[0] ?? 0);
}

/** PUT /:id: the product's new details, conditional on If-Match when it is sent. */
function updateProductHandler(useCases: ProductUseCases): Handler {
  return async function updateProduct(ctx) {
    const id = pathId(ctx);
    const body = decodeProductBody(ctx.request.body as Record<string, unknown>);
    if (body.id !== 0 && body.id !== id) {
      throw new ValidationError({ id: [`must be absent or equal to the id in the path (${id})`] });
    }
    const expectedVersion = await expectedVersionOf(ctx, id, useCases.getProduct);
    const version = expectedVersion !== undefined && { expectedVersion };
    const options = { ...version, requestId: requestIdOf(ctx), caller: callerOf(ctx) };
    answer(ctx, 200, await useCases.updateProduct.execute(id, body.details, options));
  };
}

/** DELETE /:id. */
function deleteProductHandler(useCases: ProductUseCases): Handler {
  return async function deleteProduct(ctx) {
    await useCases.deleteProduct.execute(pathId(ctx));
    ctx.status = 204;
  };
}

/** POST /:id/stock-adjustments: a delta to the stock, once per Idempotency-Key, counted by outcome. */
function adjustStockHandler(useCases: ProductUseCases, metrics: StockMetrics | undefined): Handler {
  return async function adjustStock(ctx) {
    try {
      const id = pathId(ctx);
      const adjustment = decodeStockAdjustmentBody(ctx.request.body as Record<string, unknown>);
      const { delta, reason, locationId, state, reasonCode } = adjustment;
      const fingerprint = {
        delta,
        ...(reason !== undefined && { reason }),
        ...(locationId !== undefined && { locationId }),
        state,
        reasonCode,
      };
      const idempotency = idempotencyKeyOf(ctx, 'adjust-stock', fingerprint);
      const options = { ...(idempotency && { idempotency }), requestId: requestIdOf(ctx), caller: callerOf(ctx) };
      const { value: product, replayed } = await useCases.adjustStock.execute(id, adjustment, options);
      if (!replayed) {
        const { quantityInStock } = product;
        logWith(ctx, { event: 'stock adjusted', productId: id, delta, state, reasonCode, locationId, quantityInStock });
      }
      metrics?.countAdjustment(replayed ? 'replayed' : 'adjusted');
      markReplayed(ctx, replayed);
      answer(ctx, 200, product);
    } catch (error) {
      metrics?.countAdjustment(adjustmentOutcome(error));
      throw error;
    }
  };
}

/** POST /:id/stock-state-changes: units on hand moved between states at a location, once per Idempotency-Key. */
function changeStockStateHandler(useCases: ProductUseCases): Handler {
  return async function changeStockState(ctx) {
    const id = pathId(ctx);
    const change = decodeStockStateChangeBody(ctx.request.body as Record<string, unknown>);
    const { locationId, quantity, from, to, reasonCode, reason } = change;
    const fingerprint = { locationId, quantity, from, to, reasonCode, ...(reason !== undefined && { reason }) };
    const idempotency = idempotencyKeyOf(ctx, 'change-stock-state', fingerprint);
    const options = { ...(idempotency && { idempotency }), requestId: requestIdOf(ctx), caller: callerOf(ctx) };
    const { value: product, replayed } = await useCases.changeStockState.execute(id, change, options);
    if (!replayed) logWith(ctx, { event: 'stock state changed', productId: id, locationId, quantity, from, to });
    markReplayed(ctx, replayed);
    answer(ctx, 200, product);
  };
}

export function productsRouter({ useCases, access, logger, metrics }: ProductsRouterOptions): Router {
  const router = new Router({ prefix: '/api/products' });
  // The token is verified and its scope checked on the route, not in a `use` of the router's: one layer fewer per
  // request; and none at all when the service runs open (each layer costs every request: see
  // docs/performance/platform-cost.md).
  const guard = (scope: string) => (access.enabled ? [access.authenticate, access.require(scope)] : []);
  const read = guard(Scopes.stock.read);
  const write = guard(Scopes.stock.write);
  const jsonBody = jsonObjectBody(BODY_LIMIT);
  const noQuery = queryParameters();
  const listParameters = queryParameters('limit', 'after', 'ids', 'sku', 'stockState', ...SEARCH_PARAMETERS);
  router.get('/', ...read, listParameters, listProductsHandler(useCases, logger));
  router.get('/:id', ...read, noQuery, getProductHandler(useCases));
  router.get(
    '/:id/stock-movements',
    ...read,
    queryParameters('order', 'limit', 'after', 'before'),
    listStockMovementsHandler(useCases),
  );
  router.get('/:id/stock-levels', ...read, noQuery, listStockLevelsHandler(useCases));
  router.post('/', ...write, noQuery, jsonBody, createProductHandler(useCases));
  router.put('/:id', ...write, noQuery, jsonBody, updateProductHandler(useCases));
  router.delete('/:id', ...write, noQuery, deleteProductHandler(useCases));
  router.post('/:id/stock-adjustments', ...write, noQuery, jsonBody, adjustStockHandler(useCases, metrics));
  router.post('/:id/stock-state-changes', ...write, noQuery, jsonBody, changeStockStateHandler(useCases));
  return router;
}
