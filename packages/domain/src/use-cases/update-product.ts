import { ProductNotFoundError } from '../errors';
import { type Product, type ProductDetails, validateProductDetails } from '../product';
import type { ProductRepository } from '../product-repository';

export class UpdateProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(id: number, input: ProductDetails): Promise<Product> {
    const product = await this.products.update(id, validateProductDetails(input));
    if (!product) throw new ProductNotFoundError(id);
    return product;
  }
}
