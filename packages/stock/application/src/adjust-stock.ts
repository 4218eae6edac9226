import { type Clock, type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import {
  DEFAULT_LOCATION_ID,
  InsufficientStockError,
  LocationNotFoundError,
  planAdjustment,
  type Product,
  ProductNotFoundError,
  type StockAdjustment,
  StockLimitExceededError,
  type StockTransaction,
} from '@stock/domain';
import type { WriteOptions } from './options';
import { productRecord } from './product-record';
import { applyPlan, DEFAULT_STOCK_CHANGE_SETTINGS, fillBackorders, type StockChangeSettings } from './stock-changes';

export class AdjustStock {
  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly clock: Clock,
    private readonly settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
  ) {}

  /**
   * Applies the adjustment at its location (the default one when it names
   * none) in one transaction, or throws InsufficientStockError /
   * StockLimitExceededError / LocationNotFoundError with nothing changed. The
   * location's stock never goes below what is held there. Stock that arrives
   * fills backordered holds in the same transaction.
   */
  async execute(
    id: number,
    { delta, reason, locationId = DEFAULT_LOCATION_ID }: StockAdjustment,
    { idempotency, requestId, caller }: WriteOptions = {},
  ): Promise<OnceResult<Product>> {
    const adjust = async (tx: StockTransaction): Promise<Product> => {
      if (locationId !== DEFAULT_LOCATION_ID && !(await tx.locations.findById(locationId)))
        throw new LocationNotFoundError(locationId);
      const stock = await tx.levels.lock(id);
      if (!stock) throw new ProductNotFoundError(id);
      const plan = planAdjustment(stock, locationId, delta);
      if ('status' in plan) {
        if (plan.status === 'below-minimum') throw new InsufficientStockError(id, plan.available, delta);
        throw new StockLimitExceededError(id, plan.available, delta);
      }
      const context = { at: this.clock(), reason, requestId, actor: caller };
      const product = await applyPlan(tx, stock, [plan], 0, context, this.settings);
      return delta > 0 ? fillBackorders(tx, product, locationId, context, this.settings) : product;
    };
    if (idempotency) return runOnce(this.unitOfWork, idempotency, productRecord, adjust);
    return { value: await this.unitOfWork.run(adjust), replayed: false };
  }
}
