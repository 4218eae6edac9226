import { ListStockMovements } from '@stock/application';
import type { Product } from '@stock/domain';
import { expect } from 'chai';
import type { StockStoreUnderTest } from './stock-store';

const READER = 'ledger-auditor';

/**
 * For every product given, its movements sum to its current quantities: the ledger's invariant (whoever reads it: only
 * ids are hidden).
 */
export async function expectLedgersToSum(
  store: StockStoreUnderTest,
  products: readonly Pick<Product, 'id'>[],
): Promise<void> {
  const movements = new ListStockMovements(store.products, store.movements);
  for (const { id } of products) {
    const current = (await store.products.findById(id))!;
    let quantity = 0;
    let reserved = 0;
    for (
      let page = await movements.execute(id, { after: 0, limit: 1000 }, READER);
      ;
      page = await movements.execute(id, { after: page.nextAfter!, limit: 1000 }, READER)
    ) {
      for (const movement of page.items) {
        quantity += movement.quantityDelta;
        reserved += movement.reservedDelta;
      }
      if (page.nextAfter === undefined) break;
    }
    expect({ id, quantity, reserved }, `the ledger of product ${id}`).to.deep.equal({
      id,
      quantity: current.quantityInStock,
      reserved: current.reservedQuantity,
    });
  }
}
