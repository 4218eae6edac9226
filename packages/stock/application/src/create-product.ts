import { type Clock, type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import { DEFAULT_LOCATION_ID, type Product, type ProductDetails, type StockTransaction } from '@stock/domain';
import type { WriteOptions } from './options';
import { productRecord } from './product-record';
import { addLevelEvents, DEFAULT_STOCK_CHANGE_SETTINGS, type StockChangeSettings } from './stock-changes';

export class CreateProduct {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
    private readonly settings: Pick<StockChangeSettings, 'webhookEvents'> = DEFAULT_STOCK_CHANGE_SETTINGS,
  ) {}

  /**
   * Stores the product, and its initial stock as its first movement; with an idempotency key, at most once per key.
   * With webhook events on, the movement's stock.level.changed is written in the same transaction.
   */
  async execute(
    details: ProductDetails,
    { idempotency, requestId, caller }: WriteOptions = {},
  ): Promise<OnceResult<Product>> {
    const add = async (tx: StockTransaction) => {
      const at = this.clock();
      const product = await tx.products.add(details, { at, requestId, actor: caller });
      if (this.settings.webhookEvents) {
        // The product's first movement, its `created` one, at the default location where its stock starts.
        const [created] = await tx.movements.list(product.id, { after: 0, limit: 1 });
        const level = { locationId: DEFAULT_LOCATION_ID, onHand: product.quantityInStock, reserved: 0 };
        if (created) await addLevelEvents(tx, product, [{ ...created, ...level, at }]);
      }
      return product;
    };
    if (idempotency) return runOnce(this.unitOfWork, idempotency, productRecord, add);
    // One insert (with its movement), atomic by itself: no transaction to open around it; with its event, a
    // transaction.
    if (this.settings.webhookEvents) return { value: await this.unitOfWork.run(add), replayed: false };
    return { value: await this.unitOfWork.run(add, { singleCall: true }), replayed: false };
  }
}
