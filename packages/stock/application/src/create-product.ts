import { type Clock, type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import type { Product, ProductDetails, StockTransaction } from '@stock/domain';
import type { WriteOptions } from './options';
import { productRecord } from './product-record';

export class CreateProduct {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
  ) {}

  /** Stores the product, and its initial stock as its first movement; with an idempotency key, at most once per key. */
  async execute(
    details: ProductDetails,
    { idempotency, requestId, caller }: WriteOptions = {},
  ): Promise<OnceResult<Product>> {
    const add = (tx: StockTransaction) => tx.products.add(details, { at: this.clock(), requestId, actor: caller });
    if (idempotency) return runOnce(this.unitOfWork, idempotency, productRecord, add);
    // One insert (with its movement), atomic by itself: no transaction to open around it.
    return { value: await this.unitOfWork.run(add, { singleCall: true }), replayed: false };
  }
}
