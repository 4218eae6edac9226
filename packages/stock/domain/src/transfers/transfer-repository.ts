import type { StockTransfer, TransferKey, TransferStatus } from './transfer';

/** A page of the list of transfers (see TransferKey for its order), of one status or product when given. */
export interface TransferPageQuery {
  readonly limit: number;
  readonly after?: TransferKey;
  readonly status?: TransferStatus;
  readonly productId?: number;
}

/** `next` is the key to read the page after from, when there may be one. */
export interface TransferPage {
  readonly items: readonly StockTransfer[];
  readonly next?: TransferKey;
}

/** Stock transfers, in one transaction or in none (reads). */
export interface TransferRepository {
  /** Stores a new transfer unless its reference has one; answers which, so a repeated request answers the first. */
  claim(transfer: StockTransfer): Promise<'claimed' | 'taken'>;
  findById(id: string): Promise<StockTransfer | undefined>;
  findByReference(reference: string): Promise<StockTransfer | undefined>;
  list(query: TransferPageQuery): Promise<TransferPage>;
  /** Moves an in-transit transfer to `status`; undefined when it is not in transit (any more). */
  transition(id: string, status: Exclude<TransferStatus, 'in-transit'>, at: Date): Promise<StockTransfer | undefined>;
}
