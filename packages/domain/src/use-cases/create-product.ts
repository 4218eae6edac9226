import { type Product, type ProductDetails, validateProductDetails } from '../product';
import type { ProductRepository } from '../product-repository';

export class CreateProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(input: ProductDetails): Promise<Product> {
    return this.products.add(validateProductDetails(input));
  }
}
