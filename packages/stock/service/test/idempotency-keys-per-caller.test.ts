import type { Backend } from '@platform/test-kit';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RunningStockService } from '../src';
import { callWith } from './checked-fetch';
import { type StockWithTokens, startStockWithTokens, twoClients } from './stock-with-tokens';

/** Two integrations that each manage products: two token subjects with the same scopes. */
const WRITERS = twoClients('warehouse', ['stock:read', 'stock:write']);

interface ProductJson {
  id: number;
  name: string;
  quantityInStock: number;
}

/**
 * An Idempotency-Key is its caller's own, on every route that takes one, with
 * real tokens from the identity service: another subject's same key is another
 * request, so it gets its own effect and never sees the first subject's answer,
 * while the same subject's repeat is answered from the record.
 */
for (const backend of ['memory', 'sqlite', 'postgresql'] as Backend[]) {
  describe(`Idempotency-Keys per caller with tokens on, on ${backend}`, function () {
    this.timeout(60_000);
    let system: StockWithTokens;
    let stock: RunningStockService;
    let tokens: ReadonlyMap<string, string>;

    before(async function () {
      system = await startStockWithTokens(this, backend, WRITERS, WRITERS);
      ({ stock, tokens } = system);
    });
    after(async () => system?.close());

    /** A POST as `clientId` with `key`, checked against docs/openapi.yaml. */
    async function post(clientId: string, path: string, body: unknown, key: string) {
      const response = await callWith(`${stock.url}${path}`, tokens.get(clientId), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        replayed: response.headers.get('idempotent-replayed'),
        body: (await response.json()) as ProductJson & { code?: string },
      };
    }
    const stockOf = async (id: number) =>
      ((await (await callWith(`${stock.url}/api/products/${id}`, tokens.get('warehouse-a'))).json()) as ProductJson)
        .quantityInStock;

    it("POST /api/products: another subject's same key and payload makes that subject's own product, never a replay of the first", async () => {
      const key = randomUUID();
      const lamp = { name: `Lamp ${key}`, price: 10, quantityInStock: 5 };
      const a = await post('warehouse-a', '/api/products', lamp, key);
      const b = await post('warehouse-b', '/api/products', lamp, key);
      expect([a.status, a.replayed]).to.deep.equal([201, null]);
      expect([b.status, b.replayed], "not warehouse-a's recorded answer").to.deep.equal([201, null]);
      expect(b.body.id).not.to.equal(a.body.id);
      const [againA, againB] = [
        await post('warehouse-a', '/api/products', lamp, key),
        await post('warehouse-b', '/api/products', lamp, key),
      ];
      expect([againA.status, againA.replayed, againA.body.id]).to.deep.equal([201, 'true', a.body.id]);
      expect([againB.status, againB.replayed, againB.body.id]).to.deep.equal([201, 'true', b.body.id]);
    });

    it("POST /api/products: another subject's same key with another payload is its own request, not a 422", async () => {
      const key = randomUUID();
      const a = await post('warehouse-a', '/api/products', { name: 'Lamp', price: 10, quantityInStock: 5 }, key);
      const b = await post('warehouse-b', '/api/products', { name: 'Desk', price: 80, quantityInStock: 2 }, key);
      expect([b.status, b.replayed, b.body.name]).to.deep.equal([201, null, 'Desk']);
      expect(b.body.id).not.to.equal(a.body.id);
      const reused = await post('warehouse-a', '/api/products', { name: 'Desk', price: 80, quantityInStock: 2 }, key);
      expect([reused.status, reused.body.code], "the key is still warehouse-a's own").to.deep.equal([
        422,
        'IDEMPOTENCY_KEY_REUSED',
      ]);
    });

    it("POST /api/products/{id}/stock-adjustments: another subject's same key and payload applies its own adjustment; each subject's repeat is its own replay", async () => {
      const { body: product } = await post(
        'warehouse-a',
        '/api/products',
        { name: 'Chair', price: 40, quantityInStock: 10 },
        randomUUID(),
      );
      const path = `/api/products/${product.id}/stock-adjustments`;
      const key = randomUUID();
      const a = await post('warehouse-a', path, { delta: -2, reason: 'sold' }, key);
      const b = await post('warehouse-b', path, { delta: -2, reason: 'sold' }, key);
      expect([a.status, a.replayed, a.body.quantityInStock]).to.deep.equal([200, null, 8]);
      expect([b.status, b.replayed, b.body.quantityInStock], "warehouse-b's own adjustment").to.deep.equal([
        200,
        null,
        6,
      ]);
      const [againA, againB] = [
        await post('warehouse-a', path, { delta: -2, reason: 'sold' }, key),
        await post('warehouse-b', path, { delta: -2, reason: 'sold' }, key),
      ];
      expect([againA.status, againA.replayed, againA.body.quantityInStock]).to.deep.equal([200, 'true', 8]);
      expect([againB.status, againB.replayed, againB.body.quantityInStock]).to.deep.equal([200, 'true', 6]);
      expect(await stockOf(product.id), 'two adjustments, no more').to.equal(6);
    });

    it("POST /api/products/{id}/stock-adjustments: another subject's same key with another delta is applied, not a 422", async () => {
      const { body: product } = await post(
        'warehouse-a',
        '/api/products',
        { name: 'Stool', price: 20, quantityInStock: 10 },
        randomUUID(),
      );
      const path = `/api/products/${product.id}/stock-adjustments`;
      const key = randomUUID();
      await post('warehouse-a', path, { delta: -3 }, key);
      const b = await post('warehouse-b', path, { delta: 4 }, key);
      expect([b.status, b.replayed, b.body.quantityInStock]).to.deep.equal([200, null, 11]);
      expect(await stockOf(product.id)).to.equal(11);
    });
  });
}
