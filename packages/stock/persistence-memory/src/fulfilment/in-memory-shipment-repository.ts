import type { InMemoryTransaction } from '@platform/persistence/memory';
import type { Shipment, ShipmentRepository } from '@stock/domain';
import type { InMemoryStockTables } from '../in-memory-stock-tables';
import { InMemoryOrderRecords } from './in-memory-order-records';

/** Shipments in an in-memory table. */
export class InMemoryShipmentRepository extends InMemoryOrderRecords<Shipment> implements ShipmentRepository {
  constructor(tables: InMemoryStockTables, tx?: InMemoryTransaction) {
    super(tables.shipments, tx, 'Shipments');
  }
}
