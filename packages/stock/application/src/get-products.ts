import type { Product, ProductRepository } from '@stock/domain';

export const MAX_BATCH_IDS = 100;

export class GetProducts {
  constructor(private readonly products: ProductRepository) {}

  /** The products among `ids` that exist, in id order: one read prices a whole order. */
  execute(ids: readonly number[]): Promise<Product[]> {
    return this.products.findMany([...new Set(ids)]);
  }
}
