import type { ReturnRepository, StockReturn } from '@stock/domain';

export class ListReturns {
  constructor(private readonly returns: ReturnRepository) {}

  /** An order's returns, oldest first: none for an order nothing came back of (or stock does not know). */
  execute(orderId: string): Promise<StockReturn[]> {
    return this.returns.listForOrder(orderId);
  }
}
