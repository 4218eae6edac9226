import type { PaymentStatus } from '../payments/order-payment';
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
  /**
   * The order. With `lock`, its row stays locked until the transaction ends: two transactions that change one order
   * take turns, so each decides on the state the other left (refunds never exceed what was captured, however many
   * arrive at once).
   */
  findById(id: string, options?: { readonly lock?: boolean }): Promise<Order | undefined>;
  /** The viewer's orders, oldest first (ids are time-ordered), after a given one. */
  list(viewer: Viewer, query: OrderPageQuery): Promise<Order[]>;
  /**
   * Orders still pending that were placed at or before `placedBy`, oldest first, at most `limit`: those stock has not
   * answered in time.
   */
  findPendingPlacedBy(placedBy: Date, limit: number): Promise<string[]>;
  /** How many orders are in each status (statuses with none are left out): the metrics read it at scrape time. */
  countByStatus(): Promise<Partial<Record<OrderStatus, number>>>;
  /** How many orders' payments are in each status (orders without one are left out), for the metrics. */
  countByPaymentStatus(): Promise<Partial<Record<PaymentStatus, number>>>;
  /**
   * Orders that owe the provider a call (Order.paymentWork) due by `now`, oldest due first, at most `limit`: each is
   * leased until `now + leaseMs`, so that no other worker takes it meanwhile and one that died is taken again after.
   * Saving an order makes it due at once when it still owes a call, and never due otherwise.
   */
  claimPaymentWork(now: Date, leaseMs: number, limit: number): Promise<string[]>;
  /** The order's call is tried again at `until`, not before (the provider could not be reached). */
  deferPaymentWork(id: string, until: Date): Promise<void>;
  /**
   * Stores the order's next state, only if it is still at `expectedVersion`: answers false when someone changed it
   * since.
   */
  save(order: Order, expectedVersion: number): Promise<boolean>;
}
