import { Money, type ProductDetails, productRules } from '@stock/domain';
import * as t from 'io-ts';
import { checkedBy, decodeBody, field, Invalid, isNumber, isString, optional, required } from './body-codec';

const Name = field<string, string>('Name', isString, 'a string', checkedBy(productRules.name, (value: string) => value.trim()));
const Description = field<string, string>('Description', isString, 'a string', checkedBy(productRules.description));
const Price = field<Money, number>('Price', isNumber, 'a number', (value: number) => {
  const money = Money.parse(value);
  return typeof money === 'string' ? new Invalid(money) : money;
});
const Quantity = field<number, number>('QuantityInStock', isNumber, 'an integer', checkedBy(productRules.quantityInStock));
const Id = field<number, number>('Id', isNumber, 'an integer', checkedBy((value: number) => (Number.isInteger(value) ? undefined : 'must be an integer')));

const ProductBody = t.type({
  id: optional(Id, 0),
  name: required(Name),
  description: optional(Description, ''),
  price: required(Price),
  quantityInStock: optional(Quantity, 0),
});

export interface ProductBodyDecoded {
  /** 0 when the body carries none. */
  readonly id: number;
  readonly details: ProductDetails;
}

/** Decodes a parsed JSON object into product details, or throws one ValidationError naming every bad field. */
export function decodeProductBody(body: Record<string, unknown>): ProductBodyDecoded {
  const { id, ...details } = decodeBody(ProductBody, body, 'a product');
  return { id, details };
}
