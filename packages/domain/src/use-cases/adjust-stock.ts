import { ProductNotFoundError } from '../errors';
import type { Product } from '../product';
import type { ProductRepository } from '../product-repository';
import { adjustedStock, type StockAdjustment, validateStockAdjustment } from '../stock';

export class AdjustStock {
  constructor(private readonly products: ProductRepository) {}

  /** Applies the adjustment atomically, or throws InsufficientStockError / StockLimitExceededError with nothing changed. */
  async execute(id: number, adjustment: StockAdjustment): Promise<Product> {
    const { delta } = validateStockAdjustment(adjustment);
    const outcome = await this.products.adjustStock(id, delta);
    switch (outcome.status) {
      case 'adjusted':
        return outcome.product;
      case 'not-found':
        throw new ProductNotFoundError(id);
      case 'out-of-bounds':
        // The store refused because the bounds would break: the domain names which one.
        adjustedStock(id, outcome.available, delta);
        throw new Error(`The store refused an adjustment of ${delta} to ${outcome.available}, which is within bounds.`);
    }
  }
}
