import type { UnitOfWork } from '@platform/kernel';
import { type Product, type ProductDetails, ProductNotFoundError, type StockTransaction, VersionMismatchError } from '@stock/domain';

export class UpdateProduct {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  /** With `expectedVersion`, the update happens only if nobody changed the product since that version was read. */
  async execute(id: number, details: ProductDetails, expectedVersion?: number): Promise<Product> {
    // One conditional update: atomic by itself, no transaction to open around it.
    const outcome = await this.unitOfWork.run((tx) => tx.products.update(id, details, expectedVersion), { singleCall: true });
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
