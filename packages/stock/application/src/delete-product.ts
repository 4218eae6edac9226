import type { UnitOfWork } from '@platform/kernel';
import { ProductNotFoundError, ProductReservedError, type StockTransaction } from '@stock/domain';

export class DeleteProduct {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  /**
   * Removes a product and its levels; one that holds, backorders or has units on their way between locations stays,
   * as they would be lost.
   */
  async execute(id: number): Promise<void> {
    const outcome = await this.unitOfWork.run((tx) => tx.products.remove(id), { singleCall: true });
    if (outcome.status === 'not-found') throw new ProductNotFoundError(id);
    if (outcome.status === 'blocked') {
      const product = await this.unitOfWork.run((tx) => tx.products.findById(id), { singleCall: true });
      throw new ProductReservedError(id, (product?.reservedQuantity ?? 0) + (product?.backorderedQuantity ?? 0));
    }
  }
}
