import type { SqlSession } from '@platform/persistence';
import type { MovementPageQuery, StockMovement, StockMovementRepository } from '@stock/domain';
import { MOVEMENT_STATEMENTS, toMovement } from '../tables/stock-movement';

/** The stock ledger, read: SqlProductStockRepository and SqlProductRepository append to it as they move stock. */
export class SqlStockMovementRepository implements StockMovementRepository {
  constructor(private readonly session: SqlSession) {}

  async list(productId: number, query: MovementPageQuery): Promise<StockMovement[]> {
    const rows =
      query.order === 'desc'
        ? await this.session.rows(MOVEMENT_STATEMENTS.listNewestFirst, [
            productId,
            query.before ?? Number.MAX_SAFE_INTEGER,
            query.limit,
          ])
        : await this.session.rows(MOVEMENT_STATEMENTS.list, [productId, query.after, query.limit]);
    return rows.map(toMovement);
  }
}
