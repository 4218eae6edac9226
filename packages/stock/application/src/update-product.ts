import type { Clock, UnitOfWork } from '@platform/kernel';
import {
  InsufficientStockError,
  type Product,
  type ProductDetails,
  ProductNotFoundError,
  type StockTransaction,
  VersionMismatchError,
} from '@stock/domain';

export interface UpdateOptions {
  /** Update only if nobody changed the product since this version was read. */
  readonly expectedVersion?: number;
  readonly requestId?: string;
  /** Who asks: recorded as the actor of the movement. */
  readonly caller?: string;
}

export class UpdateProduct {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
  ) {}

  /** Replaces the details; the stock may not go below what reservations hold. */
  async execute(
    id: number,
    details: ProductDetails,
    { expectedVersion, requestId, caller }: UpdateOptions = {},
  ): Promise<Product> {
    // One conditional update (with its movement): atomic by itself, no transaction to open around it.
    const outcome = await this.unitOfWork.run(
      (tx) => tx.products.update(id, details, expectedVersion, { at: this.clock(), requestId, actor: caller }),
      { singleCall: true },
    );
    switch (outcome.status) {
      case 'updated':
        return outcome.product;
      case 'not-found':
        throw new ProductNotFoundError(id);
      case 'version-mismatch':
        throw new VersionMismatchError(id, outcome.currentVersion);
      case 'below-reserved':
        throw new InsufficientStockError(
          id,
          outcome.quantityInStock - outcome.reservedQuantity,
          details.quantityInStock - outcome.quantityInStock,
        );
    }
  }
}
