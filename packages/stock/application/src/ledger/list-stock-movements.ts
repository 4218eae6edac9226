import {
  type MovementPageQuery,
  movementSeenBy,
  ProductNotFoundError,
  type ProductRepository,
  type StockMovement,
  type StockMovementRepository,
} from '@stock/domain';

export interface MovementPage {
  readonly items: StockMovement[];
  /**
   * The keyset of the next page, when there is one: its `after` oldest first, its `before` newest first (the last
   * movement's id either way).
   */
  readonly next?: number;
}

export class ListStockMovements {
  constructor(
    private readonly products: ProductRepository,
    private readonly movements: StockMovementRepository,
  ) {}

  /**
   * One keyset page of a product's ledger, oldest first or newest first, as `reader` may see it: the reservation and
   * request ids of movements made for someone else (another caller, the order flow) are left out.
   */
  async execute(productId: number, query: MovementPageQuery, reader: string): Promise<MovementPage> {
    if (!(await this.products.findById(productId))) throw new ProductNotFoundError(productId);
    const rows = (await this.movements.list(productId, { ...query, limit: query.limit + 1 })).map((movement) =>
      movementSeenBy(movement, reader),
    );
    if (rows.length <= query.limit) return { items: rows };
    const items = rows.slice(0, query.limit);
    return { items, next: items[items.length - 1]!.id };
  }
}
