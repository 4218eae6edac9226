import { decodeBody, field, isNumber, isString, optional, required } from '@platform/koa';
import { Invalid } from '@platform/kernel';
import { Money, ProductDetails, productFields } from '@stock/domain';
import * as t from 'io-ts';

const integer = (value: number): number | Invalid =>
  Number.isInteger(value) ? value : new Invalid('must be an integer');

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
});

export interface ProductBodyDecoded {
  /** 0 when the body carries none. */
  readonly id: number;
  readonly details: ProductDetails;
}

/** Decodes a parsed JSON object into product details, or throws one ValidationError naming every bad field. */
export function decodeProductBody(body: Record<string, unknown>): ProductBodyDecoded {
  const { id, backorderLimit, lowStockThreshold, ...details } = decodeBody(ProductBody, body, 'a product');
  return {
    id,
    details: ProductDetails.create({
      ...details,
      ...(backorderLimit !== undefined && { backorderLimit }),
      ...(lowStockThreshold !== undefined && { lowStockThreshold }),
    }),
  };
}
