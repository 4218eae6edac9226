import type { StockMovement } from '../stock/movement';

export interface MovementPageQuery {
  /** Only movements whose id is greater than this (0 for the first page). */
  readonly after: number;
  readonly limit: number;
}

/** The stock ledger, read: movements are only ever appended, by the writes that cause them. */
export interface StockMovementRepository {
  /** A product's movements in the order they were appended, after a given movement id. */
  list(productId: number, query: MovementPageQuery): Promise<StockMovement[]>;
}
