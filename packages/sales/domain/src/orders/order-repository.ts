import type { Order, OrderStatus } from './order';

/** Who is asking: a buyer sees and acts on their own orders only; an admin on all. */
export type Viewer = { readonly kind: 'buyer'; readonly buyer: string } | { readonly kind: 'admin' };

export interface OrderPageQuery {
  /** Only orders created after this one (its id), for the next page; undefined for the first. */
  readonly after?: string;
  readonly limit: number;
}

/** The orders of one transaction, or of none (reads). */
export interface OrderRepository {
  add(order: Order): Promise<void>;
  findById(id: string): Promise<Order | undefined>;
  /** The viewer's orders, oldest first (ids are time-ordered), after a given one. */
  list(viewer: Viewer, query: OrderPageQuery): Promise<Order[]>;
  /** How many orders are in each status (statuses with none are left out): the metrics read it at scrape time. */
  countByStatus(): Promise<Partial<Record<OrderStatus, number>>>;
  /**
   * Stores the order's next state, only if it is still at `expectedVersion`: answers false when someone changed it
   * since.
   */
  save(order: Order, expectedVersion: number): Promise<boolean>;
}
