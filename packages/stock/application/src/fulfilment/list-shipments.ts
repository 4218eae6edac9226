import type { Shipment, ShipmentRepository } from '@stock/domain';

export class ListShipments {
  constructor(private readonly shipments: ShipmentRepository) {}

  /** An order's shipments, oldest first: none for an order stock never shipped (or does not know). */
  execute(orderId: string): Promise<Shipment[]> {
    return this.shipments.listForOrder(orderId);
  }
}
