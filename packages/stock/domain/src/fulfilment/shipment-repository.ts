import type { Shipment } from './shipment';

/** Shipments, in one transaction or in none (reads). */
export interface ShipmentRepository {
  /** Stores a new shipment with its lines. */
  add(shipment: Shipment): Promise<void>;
  findById(id: string): Promise<Shipment | undefined>;
  /** An order's shipments, oldest first (then by id). */
  listForOrder(orderId: string): Promise<Shipment[]>;
}
