import { type Clock, type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import type { Product, ProductDetails, StockTransaction } from '@stock/domain';
import { actorOf, type WriteOptions } from '../options';
import { productRecord } from './product-record';
import { addProduct, DEFAULT_STOCK_CHANGE_SETTINGS, type StockChangeSettings } from '../stock/stock-changes';

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
    const add = (tx: StockTransaction) =>
      addProduct(tx, details, { at: this.clock(), requestId, actor: actorOf(caller) }, this.settings);
    if (idempotency) return runOnce(this.unitOfWork, idempotency, productRecord, add);
    // One insert (with its movement), atomic by itself: no transaction to open around it; with its event, a
    // transaction.
    if (this.settings.webhookEvents) return { value: await this.unitOfWork.run(add), replayed: false };
    return { value: await this.unitOfWork.run(add, { singleCall: true }), replayed: false };
  }
}
