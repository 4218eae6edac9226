import type { Product } from '@stock/domain';

/** A product as the API shows it, camelCase, price as a JSON number that prints exactly as stored. */
export function productJson(product: Product) {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    price: product.price.toNumber(),
    quantityInStock: product.quantityInStock,
  };
}
