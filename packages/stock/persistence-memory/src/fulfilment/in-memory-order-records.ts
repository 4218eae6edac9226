import type { InMemoryTable, InMemoryTransaction } from '@platform/persistence/memory';

/** What shipments and returns have alike: an id, the order they belong to, when they were made. */
interface OrderRecord {
  readonly id: string;
  readonly orderId: string;
  readonly createdAt: Date;
}

/** An order's shipments or returns in an in-memory table, kept as they were given (they never change). */
export class InMemoryOrderRecords<T extends OrderRecord> {
  constructor(
    private readonly table: InMemoryTable<string, T>,
    private readonly tx: InMemoryTransaction | undefined,
    /** What a record is called in the error a write outside a unit of work throws. */
    private readonly noun: string,
  ) {}

  async add(record: T): Promise<void> {
    if (!this.tx) throw new Error(`${this.noun} are written inside a unit of work.`);
    this.table.set(record.id, record, this.tx);
  }

  async findById(id: string): Promise<T | undefined> {
    return this.table.get(id, this.tx);
  }

  async listForOrder(orderId: string): Promise<T[]> {
    return [...this.table.values(this.tx)]
      .filter((record) => record.orderId === orderId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
