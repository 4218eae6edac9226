import type { InMemoryTransaction } from '@platform/persistence/memory';
import {
  compareTransferKeys,
  type StockTransfer,
  transferKey,
  type TransferPage,
  type TransferPageQuery,
  type TransferRepository,
  type TransferStatus,
} from '@stock/domain';
import type { InMemoryStockTables } from '../in-memory-stock-tables';

/** Stock transfers in an in-memory table; a reference names one transfer, as the databases' unique index keeps it. */
export class InMemoryTransferRepository implements TransferRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async claim(transfer: StockTransfer): Promise<'claimed' | 'taken'> {
    if (await this.findByReference(transfer.reference)) return 'taken';
    this.tables.transfers.set(transfer.id, transfer, this.writable());
    return 'claimed';
  }

  async findById(id: string): Promise<StockTransfer | undefined> {
    return this.tables.transfers.get(id, this.tx);
  }

  async findByReference(reference: string): Promise<StockTransfer | undefined> {
    for (const transfer of this.tables.transfers.values(this.tx)) if (transfer.reference === reference) return transfer;
    return undefined;
  }

  async list({ limit, after, status, productId }: TransferPageQuery): Promise<TransferPage> {
    const matching = [...this.tables.transfers.values(this.tx)]
      .filter(
        (transfer) =>
          (status === undefined || transfer.status === status) &&
          (productId === undefined || transfer.productId === productId) &&
          (after === undefined || compareTransferKeys(transferKey(transfer), after) > 0),
      )
      .sort((a, b) => compareTransferKeys(transferKey(a), transferKey(b)));
    const items = matching.slice(0, limit);
    return matching.length > limit ? { items, next: transferKey(items[items.length - 1]!) } : { items };
  }

  async transition(
    id: string,
    status: Exclude<TransferStatus, 'in-transit'>,
    at: Date,
  ): Promise<StockTransfer | undefined> {
    const current = this.tables.transfers.get(id, this.tx);
    if (current?.status !== 'in-transit') return undefined;
    const moved = { ...current, status, updatedAt: at };
    this.tables.transfers.set(id, moved, this.writable());
    return moved;
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Transfers are written inside a unit of work.');
    return this.tx;
  }
}
