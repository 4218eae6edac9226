import { ProductNotFoundError } from '../errors';
import type { ProductRepository } from '../product-repository';

export class DeleteProduct {
  constructor(private readonly products: ProductRepository) {}

  async execute(id: number): Promise<void> {
    if (!(await this.products.remove(id))) throw new ProductNotFoundError(id);
  }
}
