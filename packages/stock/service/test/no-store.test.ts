import { capturingLogger } from '@platform/runtime';
import { type IdentityUnderTest, STOCK, scratchFolder, startIdentity } from '@commerce/identity/testing';
import { expect } from 'chai';
import { DEFAULT_CONFIG, type RunningStockService, startStockService } from '../src';
import { callWith, checkedFetch } from './checked-fetch';

describe('the stock service’s answers to a token are no-store, and its conditional GETs still work', function () {
  this.timeout(30_000);
  let files: ReturnType<typeof scratchFolder>;
  let identity: IdentityUnderTest;
  let guarded: RunningStockService;
  let open: RunningStockService;

  before(async () => {
    files = scratchFolder();
    identity = await startIdentity(files);
    const config = { ...DEFAULT_CONFIG, port: 0, host: '127.0.0.1', databaseUrl: 'memory:', shutdownDelayMs: 0 };
    guarded = await startStockService(
      { ...config, authIssuer: identity.service.issuer },
      { logger: capturingLogger('stock-service', []) },
    );
    open = await startStockService(config, { logger: capturingLogger('stock-service', []) });
  });
  after(async () => {
    await guarded?.close({ immediate: true });
    await open?.close({ immediate: true });
    await identity?.stop();
    files?.remove();
  });

  const create = (url: string, token?: string) =>
    callWith(`${url}/api/products`, token, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lamp', price: 12.5, quantityInStock: 3 }),
    });

  it('marks a product, its 304 and its 404 no-store for a caller with a token; the ETag and If-None-Match work as before', async () => {
    const [writer, reader] = [
      await identity.token('inventory-sync', STOCK, 'stock:write'),
      await identity.token('inventory-sync', STOCK, 'stock:read'),
    ];
    const created = await create(guarded.url, writer);
    expect([created.status, created.headers.get('cache-control')]).to.deep.equal([201, 'no-store']);
    const { id } = (await created.json()) as { id: number };

    const read = await callWith(`${guarded.url}/api/products/${id}`, reader);
    const etag = read.headers.get('etag');
    expect([read.status, read.headers.get('cache-control')]).to.deep.equal([200, 'no-store']);
    expect(etag).to.match(/^"\d+"$/);
    const notModified = await callWith(`${guarded.url}/api/products/${id}`, reader, {
      headers: { 'if-none-match': etag! },
    });
    expect([
      notModified.status,
      notModified.headers.get('cache-control'),
      notModified.headers.get('etag'),
    ]).to.deep.equal([304, 'no-store', etag]);
    const missing = await callWith(`${guarded.url}/api/products/999999`, reader);
    expect([missing.status, missing.headers.get('cache-control')]).to.deep.equal([404, 'no-store']);
    const list = await callWith(`${guarded.url}/api/products`, reader);
    expect([list.status, list.headers.get('cache-control')]).to.deep.equal([200, 'no-store']);
  });

  it('leaves the answers of a service without tokens as they were: nothing in them depends on a caller', async () => {
    const created = await create(open.url);
    const { id } = (await created.json()) as { id: number };
    const read = await checkedFetch(`${open.url}/api/products/${id}`);
    expect([read.status, read.headers.get('cache-control')]).to.deep.equal([200, null]);
    const notModified = await checkedFetch(`${open.url}/api/products/${id}`, {
      headers: { 'if-none-match': read.headers.get('etag')! },
    });
    expect(notModified.status).to.equal(304);
  });
});
