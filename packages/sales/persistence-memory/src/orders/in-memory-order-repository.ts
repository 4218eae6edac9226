import type { InMemoryTable, InMemoryTransaction } from '@platform/persistence/memory';
import type { Order, OrderPageQuery, OrderRepository, OrderStatus, Viewer } from '@sales/domain';

/**
 * Orders in an in-memory table, seen through one transaction or none. Ids are time-ordered, so id order is creation
 * order.
 */
export class InMemoryOrderRepository implements OrderRepository {
  constructor(
    private readonly table: InMemoryTable<string, Order>,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async add(order: Order): Promise<void> {
    if (this.table.get(order.id, this.tx)) throw new Error(`Order ${order.id} exists already.`);
    this.table.set(order.id, order, this.writable());
  }

  async findById(id: string): Promise<Order | undefined> {
    return this.table.get(id, this.tx);
  }

  async list(viewer: Viewer, { after, limit }: OrderPageQuery): Promise<Order[]> {
    return [...this.table.values(this.tx)]
      .filter(
        (order) =>
          (viewer.kind === 'admin' || order.buyer === viewer.buyer) && (after === undefined || order.id > after),
      )
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit);
  }

  async countByStatus(): Promise<Partial<Record<OrderStatus, number>>> {
    const counts: Partial<Record<OrderStatus, number>> = {};
    for (const order of this.table.values(this.tx)) counts[order.status] = (counts[order.status] ?? 0) + 1;
    return counts;
  }

  async save(order: Order, expectedVersion: number): Promise<boolean> {
    if (this.table.get(order.id, this.tx)?.version !== expectedVersion) return false;
    this.table.set(order.id, order, this.writable());
    return true;
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Orders are written inside a unit of work.');
    return this.tx;
  }
}
