import type { InMemoryTable, InMemoryTransaction } from '@platform/persistence/memory';
import type { Order, OrderPageQuery, OrderRepository, OrderStatus, PaymentStatus, Viewer } from '@sales/domain';

/** When each order with a call to make to the payment provider is due (epoch ms): the `payment_due_at` column. */
export type PaymentDueTable = InMemoryTable<string, number>;

/**
 * Orders in an in-memory table, seen through one transaction or none. Ids are time-ordered, so id order is creation
 * order.
 */
export class InMemoryOrderRepository implements OrderRepository {
  constructor(
    private readonly table: InMemoryTable<string, Order>,
    private readonly due: PaymentDueTable,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async add(order: Order): Promise<void> {
    if (this.table.get(order.id, this.tx)) throw new Error(`Order ${order.id} exists already.`);
    this.table.set(order.id, order, this.writable());
    this.markDue(order);
  }

  /** Transactions run one at a time here: reading is locking, whatever `lock` says. */
  async findById(id: string, _options?: { readonly lock?: boolean }): Promise<Order | undefined> {
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

  async findPendingPlacedBy(placedBy: Date, limit: number): Promise<string[]> {
    return [...this.table.values(this.tx)]
      .filter((order) => order.status === 'pending' && order.createdAt <= placedBy)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((order) => order.id);
  }

  async countByStatus(): Promise<Partial<Record<OrderStatus, number>>> {
    const counts: Partial<Record<OrderStatus, number>> = {};
    for (const order of this.table.values(this.tx)) counts[order.status] = (counts[order.status] ?? 0) + 1;
    return counts;
  }

  async countByPaymentStatus(): Promise<Partial<Record<PaymentStatus, number>>> {
    const counts: Partial<Record<PaymentStatus, number>> = {};
    for (const { payment } of this.table.values(this.tx))
      if (payment) counts[payment.status] = (counts[payment.status] ?? 0) + 1;
    return counts;
  }

  async claimPaymentWork(now: Date, leaseMs: number, limit: number): Promise<string[]> {
    const due = [...this.due.entries(this.tx)]
      .filter(([, at]) => at <= now.getTime())
      .sort(([, a], [, b]) => a - b)
      .slice(0, limit)
      .map(([id]) => id);
    for (const id of due) this.due.set(id, now.getTime() + leaseMs, this.writable());
    return due;
  }

  async deferPaymentWork(id: string, until: Date): Promise<void> {
    if (this.due.get(id, this.tx) !== undefined) this.due.set(id, until.getTime(), this.writable());
  }

  async save(order: Order, expectedVersion: number): Promise<boolean> {
    if (this.table.get(order.id, this.tx)?.version !== expectedVersion) return false;
    this.table.set(order.id, order, this.writable());
    this.markDue(order);
    return true;
  }

  private markDue(order: Order): void {
    if (order.paymentWork()) this.due.set(order.id, order.updatedAt.getTime(), this.writable());
    else this.due.delete(order.id, this.writable());
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Orders are written inside a unit of work.');
    return this.tx;
  }
}
