/** The sales API's order (docs/sales.openapi.yaml) and stock's shipments and returns (docs/openapi.yaml), as read. */
export const ORDER_STATUSES = [
  'pending',
  'reserved',
  'paid',
  'partially_shipped',
  'shipped',
  'returned',
  'rejected',
  'cancelled',
  'expired',
  'unfulfilled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface OrderLine {
  readonly productId: number;
  readonly name: string;
  readonly unitPrice: number;
  readonly quantity: number;
  readonly lineTotal: number;
  readonly allocations: readonly { readonly locationId: number; readonly quantity: number }[];
  readonly shippedQuantity: number;
  readonly returnedQuantity: number;
}

export interface Payment {
  readonly provider: string;
  readonly intentId: string;
  readonly status: string;
  readonly amount: number;
  readonly currency: string;
  readonly capturedAmount: number;
  readonly refundedAmount: number;
  readonly lastError?: string;
}

export interface Refund {
  readonly id: string;
  readonly amount: number;
  readonly reason: string;
  readonly status: 'pending' | 'succeeded' | 'failed';
  readonly failureReason?: string;
  readonly createdAt: string;
}

export interface Order {
  readonly id: string;
  readonly buyer: string;
  readonly status: OrderStatus;
  readonly lines: readonly OrderLine[];
  readonly total: number;
  readonly failureReason?: string;
  readonly paymentToRelease?: true;
  readonly payment?: Payment;
  readonly refunds: readonly Refund[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const DISPOSITIONS = ['restock', 'quality-control', 'damaged', 'missing'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

export interface Shipment {
  readonly id: string;
  readonly orderId: string;
  readonly lines: readonly { readonly productId: number; readonly locationId: number; readonly quantity: number }[];
  readonly carrier: string | null;
  readonly trackingNumber: string | null;
  readonly createdAt: string;
}

export interface StockReturn {
  readonly id: string;
  readonly orderId: string;
  readonly lines: readonly {
    readonly productId: number;
    readonly locationId: number;
    readonly quantity: number;
    readonly disposition: Disposition;
  }[];
  readonly reason: string | null;
  readonly createdAt: string;
}
