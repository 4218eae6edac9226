import type { ShippedUnits, StockTransaction } from '@stock/domain';

/**
 * What an order's shipments took, per product and location, for the cancel of a paid order to release only the
 * rest (OrderEventSettings.shippedOf). The order's hold is locked first, as a shipment locks it: a shipment still
 * running is waited for and its lines read, so no unit is both shipped and released.
 */
export async function shippedOfOrder(tx: StockTransaction, orderId: string): Promise<ShippedUnits[]> {
  await tx.reservations.lockForOrder(orderId);
  return (await tx.shipments.listForOrder(orderId)).flatMap((shipment) => shipment.lines);
}
