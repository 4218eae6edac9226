import { ProductNotFoundError, VersionMismatchError } from '../errors';
import { type Product, type ProductDetails, validateProductDetails } from '../product';
import type { ProductRepository } from '../product-repository';

export class UpdateProduct {
  constructor(private readonly products: ProductRepository) {}

  /** With `expectedVersion`, the update happens only if nobody changed the product since that version was read. */
  async execute(id: number, input: ProductDetails, expectedVersion?: number): Promise<Product> {
    const outcome = await this.products.update(id, validateProductDetails(input), expectedVersion);
    switch (outcome.status) {
      case 'updated':
        return outcome.product;
      case 'not-found':
        throw new ProductNotFoundError(id);
      case 'version-mismatch':
        throw new VersionMismatchError(id, outcome.currentVersion);
    }
  }
}
