import { type Row, type SqlSession, timeOf } from '@platform/persistence';
import type { Shipment, ShipmentLine, ShipmentRepository } from '@stock/domain';

const COLUMNS = '"id", "order_id", "carrier", "tracking_number", "created_at"';
const LINE_COLUMNS = '"shipment_id", "product_id", "location_id", "quantity"';

/**
 * Shipments in SQL, on the session handed over: a shipment row, and its lines in shipment_line. A write is two
 * statements (the shipment, then every line in one insert); a read two queries (the shipments, then their lines).
 */
export class SqlShipmentRepository implements ShipmentRepository {
  constructor(private readonly session: SqlSession) {}

  async add(shipment: Shipment): Promise<void> {
    const { id, orderId, carrier, trackingNumber, createdAt } = shipment;
    await this.session.run(`insert into "shipment" (${COLUMNS}) values (?, ?, ?, ?, ?)`, [
      id,
      orderId,
      carrier,
      trackingNumber,
      this.session.dialect === 'postgresql' ? createdAt.toISOString() : createdAt.getTime(),
    ]);
    await this.session.run(
      `insert into "shipment_line" (${LINE_COLUMNS}) values ${shipment.lines.map(() => '(?, ?, ?, ?)').join(', ')}`,
      shipment.lines.flatMap((line) => [id, line.productId, line.locationId, line.quantity]),
    );
  }

  async findById(id: string): Promise<Shipment | undefined> {
    return (await this.read('"id" = ?', id))[0];
  }

  async listForOrder(orderId: string): Promise<Shipment[]> {
    return this.read('"order_id" = ?', orderId);
  }

  /** The shipments `where` takes, oldest first (then by id), each with its lines in product then location order. */
  private async read(where: string, value: string): Promise<Shipment[]> {
    const rows = await this.session.all(
      `select ${COLUMNS} from "shipment" where ${where} order by "created_at", "id"`,
      [value],
    );
    if (rows.length === 0) return [];
    const lineRows = await this.session.all(
      `select ${LINE_COLUMNS} from "shipment_line" where "shipment_id" in (select "id" from "shipment" where ${where}) order by "product_id", "location_id"`,
      [value],
    );
    return rows.map((row) => toShipment(row, lineRows.filter((line) => line.shipment_id === row.id).map(toLine)));
  }
}

function toShipment(row: Row, lines: ShipmentLine[]): Shipment {
  return {
    id: String(row.id),
    orderId: String(row.order_id),
    lines,
    carrier: (row.carrier as string | null) ?? null,
    trackingNumber: (row.tracking_number as string | null) ?? null,
    createdAt: timeOf(row.created_at),
  };
}

function toLine(row: Row): ShipmentLine {
  return { productId: Number(row.product_id), locationId: Number(row.location_id), quantity: Number(row.quantity) };
}
