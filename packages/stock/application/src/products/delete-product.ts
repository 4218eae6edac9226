import type { UnitOfWork } from '@platform/kernel';
import { ProductNotFoundError, ProductReservedError, type StockTransaction } from '@stock/domain';

export class DeleteProduct {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  /**
   * Removes a product and its levels; one that holds, backorders or has units on their way between locations stays,
   * as they would be lost (ProductStock.removal decides, under the product's lock).
   */
  async execute(id: number): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      const stock = await tx.stock.lock(id);
      if (!stock) throw new ProductNotFoundError(id);
      const refusal = stock.removal();
      if (refusal) throw new ProductReservedError(id, refusal.held);
      if (!(await tx.products.remove(id, stock.product.version))) throw new ProductNotFoundError(id);
    });
  }
}
