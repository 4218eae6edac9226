import type { ResultFormat } from '@platform/kernel';
import { Money, Product, ProductDetails } from '@stock/domain';

interface ProductSnapshot {
  id: number;
  name: string;
  description: string;
  priceCents: number;
  quantityInStock: number;
  version: number;
}

/** A product as an idempotency record keeps it, so a repeat answers the product exactly as the first call did. */
export const productRecord: ResultFormat<Product> = {
  serialise: ({ id, name, description, price, quantityInStock, version }) =>
    JSON.stringify({ id, name, description, priceCents: price.cents, quantityInStock, version } satisfies ProductSnapshot),
  deserialise(text) {
    const { id, name, description, priceCents, quantityInStock, version } = JSON.parse(text) as ProductSnapshot;
    return Product.of(id, ProductDetails.restore({ name, description, price: Money.fromCents(priceCents), quantityInStock }), version);
  },
};
