import { Scopes } from '@commerce/contracts';
import Router from '@koa/router';
import { ValidationError } from '@platform/kernel';
import {
  type AccessControl,
  logWith,
  type Logger,
  idempotencyScopeOf,
  markReplayed,
  queryParameters,
  RequestError,
  requestIdOf,
  singleQueryValue,
} from '@platform/http';
import {
  type ExportProducts,
  type ExportRow,
  exportCells,
  type ImportProducts,
  PRODUCT_COLUMNS,
} from '@stock/application';
import { stringify } from 'csv-stringify';
import type { Context } from 'koa';
import { pipeline, Readable } from 'node:stream';
import { callerOf } from '../caller';
import { CSV, NDJSON, rowsBody } from './product-rows-body';

export interface ProductImportUseCases {
  readonly importProducts: ImportProducts;
  readonly exportProducts: ExportProducts;
}

export interface ProductImportsRouterOptions {
  readonly useCases: ProductImportUseCases;
  /** Imports need stock:write, exports stock:read. */
  readonly access: AccessControl;
  readonly logger: Logger;
}

type Handler = (ctx: Context) => Promise<void>;

/** `atomic=true`, `dryRun=false`: a flag is true, false or absent (false). */
function flag(ctx: Context, name: string): boolean {
  const raw = singleQueryValue(ctx, name);
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ValidationError({ [name]: ['must be true or false'] });
}

/**
 * POST /api/product-imports: rows of CSV or NDJSON, streamed from the request
 * into the import a batch at a time; answers the counts once every row is in.
 */
function importProductsHandler(useCases: ProductImportUseCases, logger: Logger): Handler {
  return async function importProducts(ctx) {
    const atomic = flag(ctx, 'atomic');
    const dryRun = flag(ctx, 'dryRun');
    // The key's fingerprint is the path, whether all or none apply, and every byte of the body.
    const body = await rowsBody(ctx, `${ctx.path}\natomic=${atomic}\n`);
    const scoped = idempotencyScopeOf(ctx, 'import-products');
    const idempotency = scoped && { ...scoped, fingerprint: body.fingerprint };
    const requestId = requestIdOf(ctx);
    const { value, replayed } = await useCases.importProducts.execute(body.rows, {
      atomic,
      dryRun,
      ...(idempotency && { idempotency }),
      requestId,
      caller: callerOf(ctx),
      onProgress: (progress) => logger.info('product import progress', { requestId, ...progress }),
    });
    const { created, updated, unchanged, failed } = value;
    if (!replayed) logWith(ctx, { event: 'products imported', atomic, dryRun, created, updated, unchanged, failed });
    markReplayed(ctx, replayed);
    ctx.body = value;
  };
}

/** An export row as NDJSON: numbers as numbers, a product without a SKU null. */
function ndjsonLine(row: ExportRow): string {
  return `${JSON.stringify({ ...row, price: row.price.toNumber() })}\n`;
}

/**
 * GET /api/products/export: every product at every location it has stock
 * at, as CSV or NDJSON by Accept, a batch at a time. The first batch is read
 * before the 200 is committed; a failure later cuts the stream, and is logged.
 */
function exportProductsHandler(useCases: ProductImportUseCases, logger: Logger): Handler {
  return async function exportProducts(ctx) {
    const type = ctx.accepts(CSV, NDJSON);
    if (!type) throw new RequestError('NOT_ACCEPTABLE', `The export is ${CSV} or ${NDJSON}: say which in Accept.`);
    const batches = useCases.exportProducts.execute();
    const first = await batches.next();
    async function* rows(): AsyncGenerator<ExportRow> {
      if (first.done) return;
      yield* first.value;
      for await (const batch of batches) yield* batch;
    }
    const failed = (error: Error | null | undefined) => {
      if (error) logger.error('product export failed', { requestId: requestIdOf(ctx), error: String(error) });
    };
    ctx.type = type;
    if (type === CSV) {
      const cells = Readable.from(rows()).map((row: ExportRow) => exportCells(row));
      ctx.body = pipeline(cells, stringify({ header: true, columns: [...PRODUCT_COLUMNS] }), failed);
    } else {
      const lines = Readable.from(rows()).map(ndjsonLine);
      lines.on('error', failed);
      ctx.body = lines;
    }
  };
}

export function productImportsRouter({ useCases, access, logger }: ProductImportsRouterOptions): Router {
  const router = new Router();
  const read = access.require(Scopes.stock.read);
  const write = access.require(Scopes.stock.write);
  router.post(
    '/api/product-imports',
    access.authenticate,
    write,
    queryParameters('atomic', 'dryRun'),
    importProductsHandler(useCases, logger),
  );
  router.get(
    '/api/products/export',
    access.authenticate,
    read,
    queryParameters(),
    exportProductsHandler(useCases, logger),
  );
  return router;
}
