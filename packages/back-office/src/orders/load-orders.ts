import { callApi, nextLink } from '../api';
import { SALES, type Session } from '../session';
import type { Order, OrderStatus } from './order-types';

/** Orders a screen shows at once. */
export const PAGE_SIZE = 20;
/** Sales' pages read for one screen, at most, while looking for orders of one status. */
const PAGES_SCANNED = 10;
const API_PAGE = 100;

export interface OrdersPage {
  readonly orders: readonly Order[];
  /** Where the next screen starts (the last order read), when more orders follow. */
  readonly after?: string;
}

/**
 * One screen of orders, oldest first, of `status` when one is given. Sales pages its orders by id and does not filter
 * them by status: the screen reads its pages (up to PAGES_SCANNED of them) and keeps the orders of that status.
 */
export async function loadOrders(
  session: Session,
  status: OrderStatus | undefined,
  after?: string,
): Promise<OrdersPage> {
  const orders: Order[] = [];
  let cursor = after;
  for (let page = 0; page < PAGES_SCANNED; page++) {
    const limit = status ? API_PAGE : PAGE_SIZE;
    const query = new URLSearchParams({ limit: String(limit), ...(cursor && { after: cursor }) });
    const { body, headers } = await callApi<Order[]>(session, SALES, `/api/orders?${query.toString()}`);
    for (const order of body) {
      if (status && order.status !== status) continue;
      orders.push(order);
      if (orders.length === PAGE_SIZE) {
        const more = order !== body.at(-1) || nextLink(headers) !== undefined;
        return { orders, ...(more && { after: order.id }) };
      }
    }
    cursor = body.at(-1)?.id ?? cursor;
    if (!nextLink(headers)) return { orders };
  }
  return { orders, ...(cursor && { after: cursor }) };
}
