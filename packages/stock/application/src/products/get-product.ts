import { type Product, ProductNotFoundError, type ProductRepository } from '@stock/domain';

export class GetProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(id: number): Promise<Product> {
    const product = await this.products.findById(id);
    if (!product) throw new ProductNotFoundError(id);
    return product;
  }
}
