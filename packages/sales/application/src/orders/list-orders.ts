import type { Order, OrderPageQuery, OrderRepository, Viewer } from '@sales/domain';

export interface OrderPage {
  readonly items: Order[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: string;
}

export class ListOrders {
  constructor(private readonly orders: OrderRepository) {}

  /** One keyset page of the viewer's orders, oldest first, newest last. */
  async execute(viewer: Viewer, query: OrderPageQuery): Promise<OrderPage> {
    const rows = await this.orders.list(viewer, { ...query, limit: query.limit + 1 });
    if (rows.length <= query.limit) return { items: rows };
    const items = rows.slice(0, query.limit);
    return { items, nextAfter: items[items.length - 1]!.id };
  }
}
