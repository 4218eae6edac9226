import type { SqlSession } from '@platform/persistence';
import type { MovementPageQuery, StockMovement, StockMovementRepository } from '@stock/domain';
import { MOVEMENT_STATEMENTS, toMovement } from '../tables/stock-movement';

/** The stock ledger, read: SqlProductStockRepository and SqlProductRepository append to it as they move stock. */
export class SqlStockMovementRepository implements StockMovementRepository {
  constructor(private readonly session: SqlSession) {}

  async list(productId: number, { after, limit }: MovementPageQuery): Promise<StockMovement[]> {
    return (await this.session.rows(MOVEMENT_STATEMENTS.list, [productId, after, limit])).map(toMovement);
  }
}
