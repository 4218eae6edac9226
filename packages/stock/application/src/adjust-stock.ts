import { type Clock, type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import {
  InsufficientStockError,
  type Product,
  ProductNotFoundError,
  type StockAdjustment,
  StockLimitExceededError,
  type StockTransaction,
} from '@stock/domain';
import type { WriteOptions } from './options';
import { productRecord } from './product-record';

export class AdjustStock {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
  ) {}

  /**
   * Applies the adjustment atomically, or throws InsufficientStockError /
   * StockLimitExceededError with nothing changed. The stock never goes below
   * what reservations hold. Without an idempotency key it is one conditional
   * statement with no transaction around it, so a hot product's row is locked
   * for one round trip only.
   */
  async execute(
    id: number,
    { delta, reason }: StockAdjustment,
    { idempotency, requestId, caller }: WriteOptions = {},
  ): Promise<OnceResult<Product>> {
    const adjust = async (tx: StockTransaction): Promise<Product> => {
      const outcome = await tx.products.adjustStock(id, delta, { at: this.clock(), reason, requestId, actor: caller });
      switch (outcome.status) {
        case 'adjusted':
          return outcome.product;
        case 'not-found':
          throw new ProductNotFoundError(id);
        case 'below-minimum':
          throw new InsufficientStockError(id, outcome.available, delta);
        case 'above-maximum':
          throw new StockLimitExceededError(id, outcome.available, delta);
      }
    };
    if (idempotency) return runOnce(this.unitOfWork, idempotency, productRecord, adjust);
    return { value: await this.unitOfWork.run(adjust, { singleCall: true }), replayed: false };
  }
}
