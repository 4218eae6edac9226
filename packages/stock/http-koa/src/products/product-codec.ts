import { decodeBody, field, isNumber, isString, optional, required } from '@platform/http';
import { Invalid } from '@platform/kernel';
import { Money, ProductDetails, productFields } from '@stock/domain';
import * as t from 'io-ts';

const integer = (value: number): number | Invalid =>
  Number.isInteger(value) ? value : new Invalid('must be an integer');

/** Absent stays undefined and null stays null, the two meaning different things; anything else must decode. */
function absentOrNull<A>(codec: t.Type<A, unknown, unknown>): t.Type<A | null | undefined, unknown, unknown> {
  return new t.Type<A | null | undefined, unknown, unknown>(
    codec.name,
    codec.is,
    (u, c) => (u === undefined || u === null ? t.success(u) : codec.validate(u, c)),
    (a) => a,
  );
}

const ProductBody = t.type({
  id: optional(field('Id', isNumber, 'an integer', integer), 0),
  name: required(field('Name', isString, 'a string', productFields.name)),
  description: optional(field('Description', isString, 'a string', productFields.description), ''),
  price: required(field<Money, number>('Price', isNumber, 'a number', productFields.price)),
  quantityInStock: optional(field('QuantityInStock', isNumber, 'an integer', productFields.quantityInStock), 0),
  // Absent (or null): 0 on a new product, unchanged on an update, so a client that knows nothing of them keeps them.
  backorderLimit: optional(field('BackorderLimit', isNumber, 'an integer', productFields.backorderLimit), undefined),
  lowStockThreshold: optional(
    field('LowStockThreshold', isNumber, 'an integer', productFields.lowStockThreshold),
    undefined,
  ),
  // Absent: none on a new product, unchanged on an update; null removes it (so absent and null differ here).
  sku: absentOrNull(field('Sku', isString, 'a string', productFields.sku)),
});

export interface ProductBodyDecoded {
  /** 0 when the body carries none. */
  readonly id: number;
  readonly details: ProductDetails;
}

/** Decodes a parsed JSON object into product details, or throws one ValidationError naming every bad field. */
export function decodeProductBody(body: Record<string, unknown>): ProductBodyDecoded {
  const { id, backorderLimit, lowStockThreshold, sku, ...details } = decodeBody(ProductBody, body, 'a product');
  return {
    id,
    details: ProductDetails.create({
      ...details,
      ...(backorderLimit !== undefined && { backorderLimit }),
      ...(lowStockThreshold !== undefined && { lowStockThreshold }),
      ...(sku !== undefined && { sku }),
    }),
  };
}
