import { type Order, OrderNotFoundError, type OrderRepository, type Viewer } from '@sales/domain';

/** Whether a viewer may see an order: its buyer, or an admin. */
export function visibleTo(order: Order | undefined, viewer: Viewer): order is Order {
  return order !== undefined && (viewer.kind === 'admin' || order.buyer === viewer.buyer);
}

export class GetOrder {
  constructor(private readonly orders: OrderRepository) {}

  /** Another buyer's order answers exactly as one that does not exist. */
  async execute(id: string, viewer: Viewer): Promise<Order> {
    const order = await this.orders.findById(id);
    if (!visibleTo(order, viewer)) throw new OrderNotFoundError(id);
    return order;
  }
}
