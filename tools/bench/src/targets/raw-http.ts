import http from 'node:http';

/**
 * The smallest honest HTTP layer for the baselines: the same routes, the same
 * JSON in and out, the same status codes, ETag and next-page link as the
 * service; no validation library, no middleware.
 */
export interface Handlers {
  getOne(id: number): Awaitable<StoredProduct | undefined>;
  /** Asked for one row more than the page holds, as the service asks: the extra row says that a next page exists. */
  page(after: number, limit: number): Awaitable<StoredProduct[]>;
  create(body: BodyProduct): Awaitable<StoredProduct>;
  /** undefined when the product is missing, 'refused' when the new stock would go below what is held. */
  update(id: number, body: BodyProduct): Awaitable<StoredProduct | 'refused' | undefined>;
  /** undefined when the product is missing, 'refused' when the stock would leave its bounds. */
  adjust(id: number, delta: number): Awaitable<StoredProduct | 'refused' | undefined>;
}

type Awaitable<T> = Promise<T> | T;

export interface BodyProduct {
  name: string;
  description: string;
  price: number;
  quantityInStock: number;
}

/** A product as a baseline keeps it: what the service's row holds. */
export interface StoredProduct extends BodyProduct {
  id: number;
  reservedQuantity: number;
  backorderLimit: number;
  backorderedQuantity: number;
  lowStockThreshold: number;
  version: number;
  /** The named states' totals (the service's product row has them; a baseline without them holds none). */
  committedQuantity?: number;
  qualityControlQuantity?: number;
  damagedQuantity?: number;
}

export function toBodyProduct(raw: unknown): BodyProduct | undefined {
  const body = raw as Partial<BodyProduct>;
  if (typeof body?.name !== 'string' || typeof body.price !== 'number') return undefined;
  return {
    name: body.name,
    description: typeof body.description === 'string' ? body.description : '',
    price: body.price,
    quantityInStock: typeof body.quantityInStock === 'number' ? body.quantityInStock : 0,
  };
}

/** The service's JSON for a product, field for field and in its order. */
export function productJson(product: StoredProduct) {
  const { id, name, description, price, quantityInStock, reservedQuantity } = product;
  const { backorderLimit, backorderedQuantity, lowStockThreshold } = product;
  const { committedQuantity = 0, qualityControlQuantity = 0, damagedQuantity = 0 } = product;
  const setAside = committedQuantity + qualityControlQuantity + damagedQuantity;
  const available = quantityInStock - reservedQuantity - setAside - backorderedQuantity;
  return {
    id,
    // The baselines keep no SKUs: every product answers none, as one created without a SKU does.
    sku: null,
    name,
    description,
    price,
    quantityInStock,
    reservedQuantity,
    availableQuantity: available,
    backorderLimit,
    backorderedQuantity,
    lowStockThreshold,
    stockState: available <= 0 ? 'out' : available < lowStockThreshold ? 'low' : 'in',
    committedQuantity,
    qualityControlQuantity,
    damagedQuantity,
  };
}

export const etag = (product: StoredProduct) => `"${product.version}"`;

/** A page of `limit` from rows fetched with one extra; the cursor of the next page when that extra row came. */
export function pageOf(rows: StoredProduct[], limit: number): { items: StoredProduct[]; nextAfter?: number } {
  if (rows.length <= limit) return { items: rows };
  const items = rows.slice(0, limit);
  return { items, nextAfter: items.at(-1)!.id };
}

export const nextLink = (limit: number, nextAfter: number) =>
  `</api/products?limit=${limit}&after=${nextAfter}>; rel="next"`;

/** The page size when the query names none (the service's default). */
export const DEFAULT_LIMIT = 100;

function send(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendProduct(
  res: http.ServerResponse,
  status: number,
  product: StoredProduct,
  headers: Record<string, string> = {},
): void {
  send(res, status, productJson(product), { etag: etag(product), ...headers });
}

function readJson(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    req.on('error', reject);
  });
}

const ITEM = /^\/api\/products\/(\d+)$/;
const ADJUST = /^\/api\/products\/(\d+)\/stock-adjustments$/;

export function rawServer(handlers: Handlers): http.Server {
  const respond = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    try {
      const [pathname = '', search = ''] = (req.url ?? '/').split('?');
      const item = ITEM.exec(pathname);
      const adjust = ADJUST.exec(pathname);
      if (req.method === 'GET' && pathname === '/api/products') {
        const query = new URLSearchParams(search);
        const limit = Number(query.get('limit') ?? DEFAULT_LIMIT);
        const { items, nextAfter } = pageOf(await handlers.page(Number(query.get('after') ?? 0), limit + 1), limit);
        return send(
          res,
          200,
          items.map(productJson),
          nextAfter === undefined ? {} : { link: nextLink(limit, nextAfter) },
        );
      }
      if (req.method === 'GET' && item) {
        const product = await handlers.getOne(Number(item[1]));
        return product === undefined ? send(res, 404, { status: 404 }) : sendProduct(res, 200, product);
      }
      if (req.method === 'POST' && pathname === '/api/products') {
        const body = toBodyProduct(await readJson(req));
        if (!body) return send(res, 400, { status: 400 });
        const product = await handlers.create(body);
        return sendProduct(res, 201, product, { location: `/api/products/${product.id}` });
      }
      if (req.method === 'PUT' && item) {
        const body = toBodyProduct(await readJson(req));
        if (!body) return send(res, 400, { status: 400 });
        return answer(res, await handlers.update(Number(item[1]), body));
      }
      if (req.method === 'POST' && adjust) {
        const { delta } = (await readJson(req)) as { delta: number };
        return answer(res, await handlers.adjust(Number(adjust[1]), delta));
      }
      send(res, 404, { status: 404 });
    } catch (error) {
      send(res, 500, { status: 500, detail: String(error) });
    }
  };
  return http.createServer((req, res) => void respond(req, res));
}

function answer(res: http.ServerResponse, outcome: StoredProduct | 'refused' | undefined): void {
  if (outcome === undefined) return send(res, 404, { status: 404 });
  if (outcome === 'refused') return send(res, 409, { status: 409 });
  sendProduct(res, 200, outcome);
}

/** Listens on PORT (any free one by default) and says where on stdout, as every target does for the harness. */
export function listen(server: http.Server): void {
  server.keepAliveTimeout = 5000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address() as { port: number };
    console.log(JSON.stringify({ message: 'listening', port: address.port }));
  });
  // An orderly exit, so that a run under --cpu-prof writes its profile.
  process.once('SIGTERM', () => process.exit(0));
}
