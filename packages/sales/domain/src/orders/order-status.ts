/** Where an order is in its life (order.ts says how it moves), apart so that errors can name it without the order. */
export type OrderStatus =
  | 'pending'
  | 'reserved'
  | 'paid'
  | 'partially_shipped'
  | 'shipped'
  | 'returned'
  | 'rejected'
  | 'cancelled'
  | 'expired'
  | 'unfulfilled';
