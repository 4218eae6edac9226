import { expect } from 'chai';
import type { Product } from '../src';
import type { StockStoreUnderTest } from './stock-store';

const PAGE = 1000;

interface Sums {
  onHand: number;
  reserved: number;
}

/**
 * For every product given, its movements sum to its current quantities at
 * each location, and over all of them to the product's totals: the ledger's
 * invariant (whoever reads it: only ids are hidden).
 */
export async function expectLedgersToSum(
  store: StockStoreUnderTest,
  products: readonly Pick<Product, 'id'>[],
): Promise<void> {
  for (const { id } of products) {
    const current = (await store.products.findById(id))!;
    const byLocation = new Map<number, Sums>();
    for (let after = 0, page = await store.movements.list(id, { after, limit: PAGE }); ;) {
      for (const movement of page) {
        const sums = byLocation.get(movement.locationId) ?? { onHand: 0, reserved: 0 };
        sums.onHand += movement.quantityDelta;
        sums.reserved += movement.reservedDelta;
        byLocation.set(movement.locationId, sums);
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.id;
      page = await store.movements.list(id, { after, limit: PAGE });
    }
    const levels = new Map<number, Sums>();
    for (const { locationId, onHand, reserved } of (await store.stock.list(id)) ?? [])
      levels.set(locationId, { onHand, reserved });
    for (const locationId of new Set([...byLocation.keys(), ...levels.keys()]))
      expect(
        byLocation.get(locationId) ?? { onHand: 0, reserved: 0 },
        `the ledger of product ${id} at location ${locationId}`,
      ).to.deep.equal(levels.get(locationId) ?? { onHand: 0, reserved: 0 });
    const total = [...byLocation.values()].reduce(
      (sum, { onHand, reserved }) => ({ onHand: sum.onHand + onHand, reserved: sum.reserved + reserved }),
      { onHand: 0, reserved: 0 },
    );
    expect({ id, ...total }, `the ledger of product ${id}`).to.deep.equal({
      id,
      onHand: current.quantityInStock,
      reserved: current.reservedQuantity,
    });
  }
}
