import type { Product, ProductRepository, StockState } from '@stock/domain';
import { MAX_PAGE_SIZE } from './list-products';

export class StreamProducts {
  constructor(private readonly products: ProductRepository) {}

  /**
   * Every product (in `stockState`, when given), a keyset batch at a time, so a caller can stream any number of them
   * in bounded memory.
   */
  async *execute(batchSize = MAX_PAGE_SIZE, stockState?: StockState): AsyncGenerator<Product[]> {
    let after = 0;
    for (;;) {
      const batch = await this.products.list({ after, limit: batchSize, ...(stockState && { stockState }) });
      if (batch.length > 0) yield batch;
      if (batch.length < batchSize) return;
      after = batch[batch.length - 1]!.id;
    }
  }
}
