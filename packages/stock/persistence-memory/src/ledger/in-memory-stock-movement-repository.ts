import type { InMemoryTransaction } from '@platform/persistence/memory';
import type { MovementPageQuery, StockMovement, StockMovementRepository } from '@stock/domain';
import type { InMemoryStockTables } from '../in-memory-stock-tables';

export class InMemoryStockMovementRepository implements StockMovementRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async list(productId: number, { after, limit }: MovementPageQuery): Promise<StockMovement[]> {
    const page: StockMovement[] = [];
    for (const movement of this.tables.movements.values(this.tx)) {
      if (page.length === limit) break;
      if (movement.productId === productId && movement.id > after) page.push(movement);
    }
    return page;
  }
}
