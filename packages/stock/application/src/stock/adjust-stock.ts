import { type Clock, type OnceResult, runOnce } from '@platform/kernel';
import {
  type AdjustmentReasonCode,
  DEFAULT_LOCATION_ID,
  InsufficientStockError,
  isRefusal,
  LocationNotFoundError,
  type MovementContext,
  NEEDS_PLAN,
  type Product,
  ProductNotFoundError,
  type StockAdjustment,
  StockLimitExceededError,
  type StockTransaction,
  type StockUnitOfWork,
} from '@stock/domain';
import { actorOf, type WriteOptions } from '../options';
import { productRecord } from '../products/product-record';
import { DEFAULT_STOCK_CHANGE_SETTINGS, saveChange, type StockChangeSettings, withFills } from './stock-changes';

export class AdjustStock {
  constructor(
    private readonly unitOfWork: StockUnitOfWork,
    private readonly clock: Clock,
    private readonly settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
  ) {}

  /**
   * Applies the adjustment at its location (the default one when it names
   * none), in its state, in one transaction, or throws InsufficientStockError /
   * StockLimitExceededError / LocationNotFoundError with nothing changed:
   * ProductStock.adjust decides. Available stock that arrives fills
   * backordered holds in the same transaction. Where the store can, an
   * adjustment of available units without an idempotency key that is one
   * plain change is made in one statement first (adjustAtOnce, the same rules
   * rendered); anything else, refusals included, is decided by the
   * transaction.
   */
  async execute(
    id: number,
    { delta, reason, locationId = DEFAULT_LOCATION_ID, state, reasonCode }: StockAdjustment,
    { idempotency, requestId, caller }: WriteOptions = {},
  ): Promise<OnceResult<Product>> {
    const context = { at: this.clock(), reason, requestId, actor: actorOf(caller) };
    const adjust = async (tx: StockTransaction): Promise<Product> => {
      if (locationId !== DEFAULT_LOCATION_ID && !(await tx.locations.findById(locationId)))
        throw new LocationNotFoundError(locationId);
      const stock = await tx.stock.lock(id);
      if (!stock) throw new ProductNotFoundError(id);
      const adjusted = stock.adjust(locationId, delta, this.settings, { state, reasonCode });
      if (isRefusal(adjusted)) {
        if (adjusted.status === 'below-minimum') throw new InsufficientStockError(id, adjusted.available, delta, state);
        throw new StockLimitExceededError(id, adjusted.available, delta);
      }
      // Only units that arrive available fill backorders: damaged or inspected ones cannot be sold to them.
      const change = state === 'available' ? await withFills(tx, adjusted, locationId, delta, this.settings) : adjusted;
      return saveChange(tx, change, context, this.settings);
    };
    if (idempotency) return runOnce(this.unitOfWork, idempotency, productRecord, adjust);
    const atOnce = state === 'available' ? await this.atOnce(id, locationId, delta, reasonCode, context) : undefined;
    return { value: atOnce ?? (await this.unitOfWork.run(adjust)), replayed: false };
  }

  /** The adjustment in one statement, when the store has it and it is one plain change; undefined otherwise. */
  private async atOnce(
    id: number,
    locationId: number,
    delta: number,
    reasonCode: AdjustmentReasonCode,
    context: MovementContext,
  ): Promise<Product | undefined> {
    // With webhook events on, every change writes outbox rows: the one statement writes none, so it is skipped.
    if (!this.unitOfWork.changesAtOnce || this.settings.webhookEvents) return undefined;
    const outcome = await this.unitOfWork.run(
      async (tx) =>
        (await tx.stock.adjustAtOnce?.(id, locationId, delta, reasonCode, context, this.settings)) ?? NEEDS_PLAN,
      { singleCall: true },
    );
    return outcome.status === 'changed' ? outcome.product : undefined;
  }
}
