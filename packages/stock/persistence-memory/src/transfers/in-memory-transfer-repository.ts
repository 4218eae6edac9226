import type { InMemoryTransaction } from '@platform/persistence/memory';
import type { StockTransfer, TransferRepository, TransferStatus } from '@stock/domain';
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
