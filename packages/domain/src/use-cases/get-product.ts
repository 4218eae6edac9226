import { ProductNotFoundError } from '../errors';
import type { Product } from '../product';
import type { ProductRepository } from '../product-repository';

export class GetProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(id: number): Promise<Product> {
    const product = await this.products.findById(id);
    if (!product) throw new ProductNotFoundError(id);
    return product;
  }
}
