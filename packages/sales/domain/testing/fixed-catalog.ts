import type { ProductCatalog, QuotedProduct } from '../src';

/** A catalogue that quotes the products it was given: the stock API's part in tests of the use cases. */
export class FixedCatalog implements ProductCatalog {
  readonly asked: number[][] = [];

  constructor(private readonly products: readonly QuotedProduct[]) {}

  async quote(ids: readonly number[]): Promise<QuotedProduct[]> {
    this.asked.push([...ids]);
    return this.products.filter((product) => ids.includes(product.id));
  }
}
