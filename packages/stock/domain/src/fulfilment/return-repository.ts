import type { StockReturn } from './stock-return';

/** Returns, in one transaction or in none (reads). */
export interface ReturnRepository {
  /** Stores a new return with its lines. */
  add(stockReturn: StockReturn): Promise<void>;
  findById(id: string): Promise<StockReturn | undefined>;
  /** An order's returns, oldest first (then by id). */
  listForOrder(orderId: string): Promise<StockReturn[]>;
}
