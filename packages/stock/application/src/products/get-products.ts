import { Invalid, ValidationError } from '@platform/kernel';
import { type Product, productFields, type ProductRepository } from '@stock/domain';

export const MAX_BATCH_IDS = 100;

export class GetProducts {
  constructor(private readonly products: ProductRepository) {}

  /** The products among `ids` that exist, in id order: one read prices a whole order. */
  execute(ids: readonly number[]): Promise<Product[]> {
    return this.products.findMany([...new Set(ids)]);
  }

  /**
   * The product with this SKU (whatever the case of its letters) as a list of zero or one, so a caller that keys by
   * SKU reads it as it reads a batch; a value that cannot be a SKU is refused, naming `sku`.
   */
  async bySku(sku: string): Promise<Product[]> {
    const valid = productFields.sku(sku);
    if (valid instanceof Invalid) throw new ValidationError({ sku: [valid.message] });
    const product = await this.products.findBySku(valid);
    return product ? [product] : [];
  }
}
