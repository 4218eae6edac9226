import { newEvent } from '@commerce/contracts';
import { type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import {
  isRefusal,
  LocationNotFoundError,
  OrderFulfilment,
  ProductNotFoundError,
  type ProductStock,
  ReturnExceedsShippedError,
  type ReturnRequest,
  StockLimitExceededError,
  type StockReturn,
  type StockTransaction,
} from '@stock/domain';
import type { WriteOptions } from '../options';
import { DEFAULT_STOCK_CHANGE_SETTINGS, saveChange, type StockChangeSettings, withFills } from '../stock/stock-changes';
import { byProduct, fulfilmentContext, type FulfilmentSettings } from './fulfilment-settings';
import { returnRecord } from './fulfilment-records';

export class ReceiveReturn {
  private readonly changeSettings: StockChangeSettings;

  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: FulfilmentSettings,
  ) {
    this.changeSettings = { ...DEFAULT_STOCK_CHANGE_SETTINGS, ...settings };
  }

  /**
   * Receives units an order shipped and has not had back, in one unit of work: each line a `returned` movement at
   * its location as its disposition says (restocked units fill waiting backorders there, as any arrival does), the
   * return recorded, and stock.return.received written to the outbox. Locks as a shipment does: the order's hold,
   * then its products in id order. Throws LocationNotFoundError, ReturnExceedsShippedError or
   * StockLimitExceededError, or ProductNotFoundError (deleted since it shipped), with nothing moved.
   */
  execute(request: ReturnRequest, options: WriteOptions = {}): Promise<OnceResult<StockReturn>> {
    const receive = (tx: StockTransaction) => this.receive(tx, request, options);
    if (options.idempotency) return runOnce(this.unitOfWork, options.idempotency, returnRecord, receive);
    return this.unitOfWork.run(async (tx) => ({ value: await receive(tx), replayed: false }));
  }

  private async receive(tx: StockTransaction, request: ReturnRequest, options: WriteOptions): Promise<StockReturn> {
    const { orderId } = request;
    const reservation = await tx.reservations.lockForOrder(orderId);
    const [shipments, returns] = [await tx.shipments.listForOrder(orderId), await tx.returns.listForOrder(orderId)];
    for (const locationId of request.locationIds)
      if (!(await tx.locations.findById(locationId))) throw new LocationNotFoundError(locationId);
    const refusal = OrderFulfilment.of(reservation, shipments, returns).checkReturn(request.lines);
    if (refusal) throw new ReturnExceedsShippedError(orderId, refusal.returnable);
    const at = this.settings.clock();
    const stockReturn: StockReturn = {
      id: this.settings.newId(),
      orderId,
      lines: request.lines,
      reason: request.reason,
      createdAt: at,
    };
    const context = fulfilmentContext(at, `return ${stockReturn.id}`, options);
    for (const [productId, lines] of byProduct(request.lines)) {
      const locked = await tx.stock.lock(productId);
      // Shipped units of a product deleted since have no stock to come back to.
      if (!locked) throw new ProductNotFoundError(productId);
      let stock: ProductStock = locked;
      // Saved line by line: a restock's fills are recorded on their holds before the next line reads the backorders.
      for (const { locationId, quantity, disposition } of lines) {
        const received = stock.receiveReturn(locationId, quantity, disposition, this.changeSettings);
        if (isRefusal(received)) throw new StockLimitExceededError(productId, received.available, quantity);
        const change =
          disposition === 'restock'
            ? await withFills(tx, received, locationId, quantity, this.changeSettings)
            : received;
        await saveChange(tx, change, context, this.changeSettings);
        stock = change.after;
      }
    }
    await tx.returns.add(stockReturn);
    await tx.outbox.add(newEvent('stock.return.received', returnReceived(stockReturn), at));
    return stockReturn;
  }
}

/** A return as stock.return.received tells it. */
function returnReceived({ id, orderId, lines, reason }: StockReturn) {
  const received = lines.map(({ productId, locationId, quantity, disposition }) => ({
    productId,
    locationId,
    quantity,
    disposition,
  }));
  return { returnId: id, orderId, lines: received, reason };
}
