import { type Shipment, ShipmentNotFoundError, type ShipmentRepository } from '@stock/domain';

export class GetShipment {
  constructor(private readonly shipments: ShipmentRepository) {}

  async execute(id: string): Promise<Shipment> {
    const shipment = await this.shipments.findById(id);
    if (!shipment) throw new ShipmentNotFoundError(id);
    return shipment;
  }
}
