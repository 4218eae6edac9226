import { Scopes } from '@commerce/contracts';
import Router from '@koa/router';
import {
  authenticate,
  createHttpApp,
  principalOf,
  problemsFor,
  requireScope,
  type TokenVerifier,
} from '@platform/http';
import type { AddressInfo } from 'node:net';

export interface ResourceServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A stock-like API on the house's app, guarded as a service would guard it:
 * reads need stock:read, writes stock:write; health stays open. Its routes
 * answer the principal they were given.
 */
export async function startResourceServer(verifier: TokenVerifier): Promise<ResourceServer> {
  const quiet = { log: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const http = createHttpApp({ logger: quiet, toProblem: problemsFor<never>({}) });
  const router = new Router({ prefix: '/api' });
  router.use(authenticate(verifier));
  router.get('/products', requireScope(Scopes.stock.read), (ctx) => {
    ctx.body = principalOf(ctx);
  });
  router.post('/products', requireScope(Scopes.stock.write), (ctx) => {
    ctx.status = 201;
    ctx.body = principalOf(ctx);
  });
  http.route(router);
  const server = http.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
