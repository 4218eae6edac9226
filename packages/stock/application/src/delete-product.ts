import type { UnitOfWork } from '@platform/kernel';
import { ProductNotFoundError, ProductReservedError, type StockTransaction } from '@stock/domain';

export class DeleteProduct {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  /** Removes a product; one whose stock reservations hold stays, as they would lose their stock. */
  async execute(id: number): Promise<void> {
    const outcome = await this.unitOfWork.run((tx) => tx.products.remove(id), { singleCall: true });
    if (outcome.status === 'not-found') throw new ProductNotFoundError(id);
    if (outcome.status === 'reserved') throw new ProductReservedError(id, outcome.reservedQuantity);
  }
}
