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
  version: number;
}

export function productSnapshot({
  id,
  name,
  description,
  price,
  quantityInStock,
  reservedQuantity,
  version,
}: Product): ProductSnapshot {
  return { id, name, description, priceCents: price.cents, quantityInStock, reservedQuantity, version };
}

export function productFromSnapshot({
  id,
  name,
  description,
  priceCents,
  quantityInStock,
  reservedQuantity = 0,
  version,
}: ProductSnapshot): Product {
  return Product.of(
    id,
    ProductDetails.restore({ name, description, price: Money.fromCents(priceCents), quantityInStock }),
    version,
    reservedQuantity,
  );
}

/** A product as an idempotency record keeps it, so a repeat answers the product exactly as the first call did. */
export const productRecord: ResultFormat<Product> = {
  serialise: (product) => JSON.stringify(productSnapshot(product)),
  deserialise: (text) => productFromSnapshot(JSON.parse(text) as ProductSnapshot),
};
