import type { StockMovement } from '../stock/movement';

/**
 * A keyset page of a product's ledger: oldest first past `after` (0 for the first page), or newest first before
 * `before` (none for the first page).
 */
export type MovementPageQuery =
  | { readonly order?: 'asc'; readonly after: number; readonly limit: number }
  | { readonly order: 'desc'; readonly before?: number; readonly limit: number };

/** The stock ledger, read: movements are only ever appended, by the writes that cause them. */
export interface StockMovementRepository {
  /** A product's movements in the order they were appended, or newest first, past the page's keyset. */
  list(productId: number, query: MovementPageQuery): Promise<StockMovement[]>;
}
