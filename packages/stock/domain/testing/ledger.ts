import { expect } from 'chai';
import type { Product, StockMovement } from '../src';
import type { StockStoreUnderTest } from './stock-store';

const PAGE = 1000;

/** A level's quantities on hand in each state (incoming is not in the ledger). */
interface Sums {
  onHand: number;
  reserved: number;
  committed: number;
  qualityControl: number;
  damaged: number;
}

const NOTHING: Sums = { onHand: 0, reserved: 0, committed: 0, qualityControl: 0, damaged: 0 };

/** The quantity each delta of a movement moves. */
const DELTA_OF: Readonly<Record<keyof Sums, keyof StockMovement>> = {
  onHand: 'quantityDelta',
  reserved: 'reservedDelta',
  committed: 'committedDelta',
  qualityControl: 'qualityControlDelta',
  damaged: 'damagedDelta',
};

const plus = (sums: Sums, other: Sums): Sums => ({
  onHand: sums.onHand + other.onHand,
  reserved: sums.reserved + other.reserved,
  committed: sums.committed + other.committed,
  qualityControl: sums.qualityControl + other.qualityControl,
  damaged: sums.damaged + other.damaged,
});

const deltasOf = (movement: StockMovement): Sums =>
  Object.fromEntries(Object.entries(DELTA_OF).map(([state, delta]) => [state, movement[delta]])) as unknown as Sums;

/**
 * For every product given, its movements sum to its current quantities in
 * every state at each location, and over all of them to the product's totals:
 * the ledger's invariant (whoever reads it: only ids are hidden).
 */
export async function expectLedgersToSum(
  store: StockStoreUnderTest,
  products: readonly Pick<Product, 'id'>[],
): Promise<void> {
  for (const { id } of products) {
    const current = (await store.products.findById(id))!;
    const byLocation = new Map<number, Sums>();
    for (let after = 0, page = await store.movements.list(id, { after, limit: PAGE }); ;) {
      for (const movement of page)
        byLocation.set(movement.locationId, plus(byLocation.get(movement.locationId) ?? NOTHING, deltasOf(movement)));
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.id;
      page = await store.movements.list(id, { after, limit: PAGE });
    }
    const levels = new Map<number, Sums>();
    for (const { locationId, onHand, reserved, committed, qualityControl, damaged } of (await store.stock.list(id)) ??
      [])
      levels.set(locationId, { onHand, reserved, committed, qualityControl, damaged });
    for (const locationId of new Set([...byLocation.keys(), ...levels.keys()]))
      expect(
        byLocation.get(locationId) ?? NOTHING,
        `the ledger of product ${id} at location ${locationId}`,
      ).to.deep.equal(levels.get(locationId) ?? NOTHING);
    const total = [...byLocation.values()].reduce(plus, NOTHING);
    expect({ id, ...total }, `the ledger of product ${id}`).to.deep.equal({
      id,
      onHand: current.quantityInStock,
      reserved: current.reservedQuantity,
      committed: current.committedQuantity,
      qualityControl: current.qualityControlQuantity,
      damaged: current.damagedQuantity,
    });
  }
}
