import http from 'node:http';

/**
 * The smallest honest HTTP layer for the baselines: the same routes, JSON in
 * and out, the same status codes; no validation library, no middleware.
 */
export interface Handlers {
  getOne(id: number): Promise<unknown | undefined> | unknown | undefined;
  page(after: number, limit: number): Promise<unknown[]> | unknown[];
  create(body: BodyProduct): Promise<{ id: number; json: unknown }> | { id: number; json: unknown };
  update(id: number, body: BodyProduct): Promise<unknown | undefined> | unknown | undefined;
  /** undefined when the product is missing, 'refused' when the stock would leave its bounds. */
  adjust(id: number, delta: number): Promise<unknown | 'refused' | undefined> | unknown | 'refused' | undefined;
}

export interface BodyProduct {
  name: string;
  description: string;
  price: number;
  quantityInStock: number;
}

export function toBodyProduct(raw: unknown): BodyProduct | undefined {
  const body = raw as Partial<BodyProduct>;
  if (typeof body?.name !== 'string' || typeof body.price !== 'number') return undefined;
  return { name: body.name, description: typeof body.description === 'string' ? body.description : '', price: body.price, quantityInStock: typeof body.quantityInStock === 'number' ? body.quantityInStock : 0 };
}

function send(res: http.ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
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
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

const ITEM = /^\/api\/products\/(\d+)$/;
const ADJUST = /^\/api\/products\/(\d+)\/stock-adjustments$/;

export function rawServer(handlers: Handlers): http.Server {
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    try {
      const [pathname = '', search = ''] = (req.url ?? '/').split('?');
      const item = ITEM.exec(pathname);
      const adjust = ADJUST.exec(pathname);
      if (req.method === 'GET' && pathname === '/api/products') {
        const query = new URLSearchParams(search);
        return send(res, 200, await handlers.page(Number(query.get('after') ?? 0), Number(query.get('limit') ?? 100)));
      }
      if (req.method === 'GET' && item) {
        const product = await handlers.getOne(Number(item[1]));
        return product === undefined ? send(res, 404, { status: 404 }) : send(res, 200, product);
      }
      if (req.method === 'POST' && pathname === '/api/products') {
        const body = toBodyProduct(await readJson(req));
        if (!body) return send(res, 400, { status: 400 });
        const { id, json } = await handlers.create(body);
        return send(res, 201, json, { location: `/api/products/${id}` });
      }
      if (req.method === 'PUT' && item) {
        const body = toBodyProduct(await readJson(req));
        if (!body) return send(res, 400, { status: 400 });
        const product = await handlers.update(Number(item[1]), body);
        return product === undefined ? send(res, 404, { status: 404 }) : send(res, 200, product);
      }
      if (req.method === 'POST' && adjust) {
        const { delta } = (await readJson(req)) as { delta: number };
        const product = await handlers.adjust(Number(adjust[1]), delta);
        if (product === undefined) return send(res, 404, { status: 404 });
        return product === 'refused' ? send(res, 409, { status: 409 }) : send(res, 200, product);
      }
      send(res, 404, { status: 404 });
    } catch (error) {
      send(res, 500, { status: 500, detail: String(error) });
    }
  };
  return http.createServer((req, res) => void answer(req, res));
}

export function listen(server: http.Server): void {
  server.keepAliveTimeout = 5000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address() as { port: number };
    console.log(JSON.stringify({ message: 'listening', port: address.port }));
  });
  // An orderly exit, so that a run under --cpu-prof writes its profile.
  process.once('SIGTERM', () => process.exit(0));
}
