import { newEvent } from '@commerce/contracts';
import { type OnceResult, runOnce, type UnitOfWork } from '@platform/kernel';
import {
  isRefusal,
  LocationNotFoundError,
  OrderFulfilment,
  OrderNotShippableError,
  type Shipment,
  ShipmentExceedsCommittedError,
  type ShipmentLine,
  type ShipmentRequest,
  StockChange,
  type StockTransaction,
} from '@stock/domain';
import type { WriteOptions } from '../options';
import { DEFAULT_STOCK_CHANGE_SETTINGS, saveChange, type StockChangeSettings } from '../stock/stock-changes';
import { byProduct, fulfilmentContext, type FulfilmentSettings } from './fulfilment-settings';
import { shipmentRecord } from './fulfilment-records';

export class ShipOrder {
  private readonly changeSettings: StockChangeSettings;

  constructor(
    private readonly unitOfWork: UnitOfWork<StockTransaction>,
    private readonly settings: FulfilmentSettings,
  ) {
    this.changeSettings = { ...DEFAULT_STOCK_CHANGE_SETTINGS, ...settings };
  }

  /**
   * Ships units an order committed and has not shipped, in one unit of work: each line a `shipped` movement at its
   * location (on hand and committed down), the shipment recorded, and stock.shipment.created written to the outbox.
   * The order's hold is locked first, then its products in id order, so shipments of one order take turns on any
   * number of instances and the second of two racing for the last units finds them shipped. Throws
   * OrderNotShippableError, LocationNotFoundError or ShipmentExceedsCommittedError with nothing moved.
   */
  execute(request: ShipmentRequest, options: WriteOptions = {}): Promise<OnceResult<Shipment>> {
    const ship = (tx: StockTransaction) => this.ship(tx, request, options);
    if (options.idempotency) return runOnce(this.unitOfWork, options.idempotency, shipmentRecord, ship);
    return this.unitOfWork.run(async (tx) => ({ value: await ship(tx), replayed: false }));
  }

  private async ship(tx: StockTransaction, request: ShipmentRequest, options: WriteOptions): Promise<Shipment> {
    const { orderId } = request;
    const reservation = await tx.reservations.lockForOrder(orderId);
    const fulfilment = OrderFulfilment.of(reservation, await tx.shipments.listForOrder(orderId), []);
    if (!fulfilment.isShippable) throw new OrderNotShippableError(orderId);
    for (const locationId of request.locationIds)
      if (!(await tx.locations.findById(locationId))) throw new LocationNotFoundError(locationId);
    const lines = fulfilment.planShipment(request.lines);
    if (isRefusal(lines)) throw new ShipmentExceedsCommittedError(orderId, fulfilment.shippableOf(request.productIds));
    const at = this.settings.clock();
    const shipment: Shipment = {
      id: this.settings.newId(),
      orderId,
      lines,
      carrier: request.carrier,
      trackingNumber: request.trackingNumber,
      createdAt: at,
    };
    const context = fulfilmentContext(at, `shipment ${shipment.id}`, options);
    for (const [productId, productLines] of byProduct(lines)) {
      const stock = await tx.stock.lock(productId);
      if (!stock) throw new Error(`Product ${productId}, committed to order ${orderId}, is gone: nothing was shipped.`);
      let change = StockChange.none(stock);
      for (const { locationId, quantity } of productLines) {
        const shipped = change.after.ship(locationId, quantity, this.changeSettings);
        if (isRefusal(shipped))
          throw this.levelShort(fulfilment, request, { productId, locationId, quantity: shipped.committed });
        change = change.followedBy(shipped);
      }
      await saveChange(tx, change, context, this.changeSettings);
    }
    await tx.shipments.add(shipment);
    await tx.outbox.add(newEvent('stock.shipment.created', shipmentCreated(shipment), at));
    return shipment;
  }

  /**
   * The level holds fewer committed units than the order's allocations say are left there: units an older version
   * of stock committed by taking them out at once (nothing waits to ship). The refusal names what can ship, none
   * beyond what the level holds.
   */
  private levelShort(fulfilment: OrderFulfilment, request: ShipmentRequest, level: ShipmentLine) {
    const shippable = fulfilment
      .shippableOf(request.productIds)
      .map((units) =>
        units.productId === level.productId && units.locationId === level.locationId
          ? { ...units, quantity: Math.min(units.quantity, level.quantity) }
          : units,
      )
      .filter((units) => units.quantity > 0);
    return new ShipmentExceedsCommittedError(request.orderId, shippable);
  }
}

/** A shipment as stock.shipment.created tells it. */
function shipmentCreated({ id, orderId, lines, carrier, trackingNumber }: Shipment) {
  const shipped = lines.map(({ productId, locationId, quantity }) => ({ productId, locationId, quantity }));
  return { shipmentId: id, orderId, lines: shipped, carrier, trackingNumber };
}
