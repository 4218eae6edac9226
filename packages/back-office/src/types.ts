/** The stock API's shapes the back office reads (docs/openapi.yaml). */
export interface Product {
  readonly id: number;
  readonly sku: string | null;
  readonly name: string;
  readonly description: string;
  readonly price: number;
  readonly quantityInStock: number;
  readonly availableQuantity: number;
  readonly backorderLimit: number;
  readonly lowStockThreshold: number;
  readonly stockState: 'in' | 'low' | 'out';
}

export interface StockLevel {
  readonly locationId: number;
  readonly locationCode: string;
  readonly onHand: number;
  readonly reserved: number;
  readonly committed: number;
  readonly qualityControl: number;
  readonly damaged: number;
  readonly available: number;
  readonly incoming: number;
}

export interface Location {
  readonly id: number;
  readonly code: string;
  readonly name?: string;
}

export interface StockMovement {
  readonly id: number;
  readonly locationId: number;
  readonly transferId?: string;
  readonly kind: string;
  readonly quantityDelta: number;
  readonly reasonCode: string;
  readonly reason?: string;
  readonly actor: string;
  readonly at: string;
}

export interface StockTransfer {
  readonly id: string;
  readonly productId: number;
  readonly fromLocationId: number;
  readonly toLocationId: number;
  readonly quantity: number;
  readonly reference: string;
  readonly status: 'in-transit' | 'received' | 'cancelled';
  readonly createdAt: string;
  readonly updatedAt: string;
}
