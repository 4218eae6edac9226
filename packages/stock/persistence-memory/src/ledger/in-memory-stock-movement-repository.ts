import type { InMemoryTransaction } from '@platform/persistence/memory';
import type { MovementPageQuery, StockMovement, StockMovementRepository } from '@stock/domain';
import type { InMemoryStockTables } from '../in-memory-stock-tables';

export class InMemoryStockMovementRepository implements StockMovementRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async list(productId: number, query: MovementPageQuery): Promise<StockMovement[]> {
    const mine = (movement: StockMovement) => movement.productId === productId;
    if (query.order === 'desc') {
      const before = query.before ?? Number.POSITIVE_INFINITY;
      const older = [...this.tables.movements.values(this.tx)].filter((m) => mine(m) && m.id < before);
      return older.reverse().slice(0, query.limit);
    }
    const page: StockMovement[] = [];
    for (const movement of this.tables.movements.values(this.tx)) {
      if (page.length === query.limit) break;
      if (mine(movement) && movement.id > query.after) page.push(movement);
    }
    return page;
  }
}
