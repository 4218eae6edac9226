import { type Clock, type OnceResult, runOnce } from '@platform/kernel';
import {
  isRefusal,
  LocationNotFoundError,
  type Product,
  ProductNotFoundError,
  StockStateShortError,
  type StockStateChange,
  type StockTransaction,
  type StockUnitOfWork,
} from '@stock/domain';
import { actorOf, type WriteOptions } from '../options';
import { productRecord } from '../products/product-record';
import { DEFAULT_STOCK_CHANGE_SETTINGS, saveChange, type StockChangeSettings, withFills } from './stock-changes';

export class ChangeStockState {
  constructor(
    private readonly unitOfWork: StockUnitOfWork,
    private readonly clock: Clock,
    private readonly settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
  ) {}

  /**
   * Moves units on hand at a location from one state to another (available,
   * quality-control, damaged) in one transaction: one `state-changed`
   * movement, decided by ProductStock.changeState, or StockStateShortError /
   * LocationNotFoundError / ProductNotFoundError with nothing moved. Units
   * that become available fill backordered holds there, as stock arriving
   * does.
   */
  execute(id: number, change: StockStateChange, options: WriteOptions = {}): Promise<OnceResult<Product>> {
    const { locationId, quantity, from, to, reasonCode, reason } = change;
    const context = { at: this.clock(), reason, requestId: options.requestId, actor: actorOf(options.caller) };
    const run = async (tx: StockTransaction): Promise<Product> => {
      if (!(await tx.locations.findById(locationId))) throw new LocationNotFoundError(locationId);
      const stock = await tx.stock.lock(id);
      if (!stock) throw new ProductNotFoundError(id);
      const changed = stock.changeState(locationId, quantity, { from, to }, this.settings, reasonCode);
      if (isRefusal(changed)) throw new StockStateShortError(id, changed.from, changed.holds, quantity);
      const arrived = to === 'available' ? quantity : 0;
      return saveChange(tx, await withFills(tx, changed, locationId, arrived, this.settings), context, this.settings);
    };
    if (options.idempotency) return runOnce(this.unitOfWork, options.idempotency, productRecord, run);
    return this.unitOfWork.run(run).then((value) => ({ value, replayed: false }));
  }
}
