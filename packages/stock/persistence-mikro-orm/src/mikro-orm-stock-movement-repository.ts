import { type Row, type SqlSession, timeOf } from '@platform/mikro-orm';
import type { MovementKind, MovementPageQuery, StockMovement, StockMovementRepository } from '@stock/domain';

const COLUMNS =
  '"id", "product_id", "location_id", "transfer_id", "kind", "quantity_delta", "reserved_delta", "quantity_after", "reserved_after", "reason", "reservation_id", "request_id", "actor", "trace_id", "sequence", "at"';

/** The stock ledger, read through MikroORM; the product table's trigger is what appends to it. */
export class MikroOrmStockMovementRepository implements StockMovementRepository {
  constructor(private readonly session: SqlSession) {}

  async list(productId: number, { after, limit }: MovementPageQuery): Promise<StockMovement[]> {
    const rows = await this.session.all(
      `select ${COLUMNS} from "stock_movement" where "product_id" = ? and "id" > ? order by "id" limit ?`,
      [productId, after, limit],
    );
    return rows.map((row) => toMovement(row));
  }
}

function toMovement(row: Row): StockMovement {
  return {
    id: Number(row.id),
    productId: Number(row.product_id),
    locationId: Number(row.location_id),
    ...(row.transfer_id != null && { transferId: String(row.transfer_id) }),
    kind: row.kind as MovementKind,
    quantityDelta: Number(row.quantity_delta),
    reservedDelta: Number(row.reserved_delta),
    quantityAfter: Number(row.quantity_after),
    reservedAfter: Number(row.reserved_after),
    ...(row.reason != null && { reason: String(row.reason) }),
    ...(row.reservation_id != null && { reservationId: String(row.reservation_id) }),
    ...(row.request_id != null && { requestId: String(row.request_id) }),
    ...(row.actor != null && { actor: String(row.actor) }),
    ...(row.trace_id != null && { traceId: String(row.trace_id) }),
    sequence: Number(row.sequence),
    at: timeOf(row.at),
  };
}
