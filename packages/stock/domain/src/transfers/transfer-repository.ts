import type { StockTransfer, TransferStatus } from './transfer';

/** Stock transfers, in one transaction or in none (reads). */
export interface TransferRepository {
  /** Stores a new transfer unless its reference has one; answers which, so a repeated request answers the first. */
  claim(transfer: StockTransfer): Promise<'claimed' | 'taken'>;
  findById(id: string): Promise<StockTransfer | undefined>;
  findByReference(reference: string): Promise<StockTransfer | undefined>;
  /** Moves an in-transit transfer to `status`; undefined when it is not in transit (any more). */
  transition(id: string, status: Exclude<TransferStatus, 'in-transit'>, at: Date): Promise<StockTransfer | undefined>;
}
