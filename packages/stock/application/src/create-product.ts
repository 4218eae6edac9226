import { type IdempotentRequest, type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import type { Product, ProductDetails, StockTransaction } from '@stock/domain';
import { productRecord } from './product-record';

export class CreateProduct {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  /** Stores the product; with an idempotency key, at most once per key, the key recorded in the same transaction. */
  async execute(details: ProductDetails, idempotency?: IdempotentRequest): Promise<OnceResult<Product>> {
    const add = (tx: StockTransaction) => tx.products.add(details);
    if (idempotency) return runOnce(this.unitOfWork, idempotency, productRecord, add);
    return { value: await this.unitOfWork.run(add, { singleCall: true }), replayed: false };
  }
}
