import { type MovementPageQuery, ProductNotFoundError, type ProductRepository, type StockMovement, type StockMovementRepository } from '@stock/domain';

export interface MovementPage {
  readonly items: StockMovement[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: number;
}

export class ListStockMovements {
  constructor(
    private readonly products: ProductRepository,
    private readonly movements: StockMovementRepository,
  ) {}

  /** One keyset page of a product's ledger, oldest first. */
  async execute(productId: number, query: MovementPageQuery): Promise<MovementPage> {
    if (!(await this.products.findById(productId))) throw new ProductNotFoundError(productId);
    const rows = await this.movements.list(productId, { after: query.after, limit: query.limit + 1 });
    if (rows.length <= query.limit) return { items: rows };
    const items = rows.slice(0, query.limit);
    return { items, nextAfter: items[items.length - 1]!.id };
  }
}
