import type { ResultFormat } from '@platform/kernel';
import { Money, Product, ProductDetails } from '@stock/domain';

interface ProductSnapshot {
  id: number;
  name: string;
  description: string;
  priceCents: number;
  quantityInStock: number;
  /** Absent in records written before reservations existed: nothing was held then. */
  reservedQuantity?: number;
  /** Absent in records written before the named states: nothing was committed, in quality control or damaged. */
  committedQuantity?: number;
  qualityControlQuantity?: number;
  damagedQuantity?: number;
  version: number;
  /** Absent in records written before locations: the settings were 0 and nothing was backordered. */
  backorderLimit?: number;
  lowStockThreshold?: number;
  backorderedQuantity?: number;
  lowStockAlert?: boolean;
  /** Absent in records written before SKUs: the product had none. */
  sku?: string | null;
}

export function productSnapshot(product: Product): ProductSnapshot {
  const { id, name, description, price, quantityInStock, reservedQuantity, version } = product;
  const { backorderLimit, lowStockThreshold, backorderedQuantity, sku } = product;
  const { committedQuantity, qualityControlQuantity, damagedQuantity } = product;
  return {
    id,
    name,
    description,
    priceCents: price.cents,
    quantityInStock,
    reservedQuantity,
    committedQuantity,
    qualityControlQuantity,
    damagedQuantity,
    version,
    backorderLimit,
    lowStockThreshold,
    backorderedQuantity,
    lowStockAlert: product.stock.lowStockAlert,
    sku,
  };
}

export function productFromSnapshot(snapshot: ProductSnapshot): Product {
  const { id, name, description, priceCents, quantityInStock, reservedQuantity = 0, version } = snapshot;
  const { backorderLimit = 0, lowStockThreshold = 0, backorderedQuantity = 0, lowStockAlert = false } = snapshot;
  const { committedQuantity = 0, qualityControlQuantity = 0, damagedQuantity = 0 } = snapshot;
  const sku = snapshot.sku ?? null;
  const price = Money.fromCents(priceCents);
  return Product.of(
    id,
    ProductDetails.restore({ name, description, price, quantityInStock, backorderLimit, lowStockThreshold, sku }),
    version,
    reservedQuantity,
    { committedQuantity, qualityControlQuantity, damagedQuantity, backorderedQuantity, lowStockAlert },
  );
}

/** A product as an idempotency record keeps it, so a repeat answers the product exactly as the first call did. */
export const productRecord: ResultFormat<Product> = {
  serialise: (product) => JSON.stringify(productSnapshot(product)),
  deserialise: (text) => productFromSnapshot(JSON.parse(text) as ProductSnapshot),
};
