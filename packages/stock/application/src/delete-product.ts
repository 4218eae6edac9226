import type { UnitOfWork } from '@platform/kernel';
import { ProductNotFoundError, type StockTransaction } from '@stock/domain';

export class DeleteProduct {
  constructor(private readonly unitOfWork: UnitOfWork<StockTransaction>) {}

  async execute(id: number): Promise<void> {
    const removed = await this.unitOfWork.run((tx) => tx.products.remove(id), { singleCall: true });
    if (!removed) throw new ProductNotFoundError(id);
  }
}
