import { type FieldErrors, INT32_MAX, Money, type ProductDetails, productRules, ValidationError } from '@stock/domain';
import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';

const PROPERTIES = ['id', 'name', 'description', 'price', 'quantityInStock'] as const;
type Property = (typeof PROPERTIES)[number];
const BY_LOWER_CASE = new Map<string, Property>(PROPERTIES.map((p) => [p.toLowerCase(), p]));

/** Why a value breaks a field's rule. */
class Invalid {
  constructor(readonly message: string) {}
}

/** A field decoder that checks the JSON type, then the domain's own rule for the field. */
function field<A, I>(name: string, isType: (u: unknown) => u is I, typeName: string, rule: (value: I) => A | Invalid): t.Type<A, unknown, unknown> {
  return new t.Type<A, unknown, unknown>(
    name,
    (u): u is A => false,
    (u, context) => {
      if (!isType(u)) return t.failure(u, context, `must be ${typeName}`);
      const result = rule(u);
      return result instanceof Invalid ? t.failure(u, context, result.message) : t.success(result);
    },
    (a) => a,
  );
}

/** Adapts a domain rule (a message or undefined) to a field rule that keeps or transforms the value. */
function checkedBy<T>(check: (value: T) => string | undefined, transform: (value: T) => T = (value) => value) {
  return (value: T): T | Invalid => {
    const problem = check(value);
    return problem ? new Invalid(problem) : transform(value);
  };
}

/** Absent (or null, as clients of nullable models send) takes the default; anything else must decode. */
function optional<A>(codec: t.Type<A, unknown, unknown>, fallback: A): t.Type<A, unknown, unknown> {
  return new t.Type<A, unknown, unknown>(codec.name, codec.is, (u, c) => (u == null ? t.success(fallback) : codec.validate(u, c)), codec.encode);
}

/** Absent or null is "is required", before any type check. */
function required<A>(codec: t.Type<A, unknown, unknown>): t.Type<A, unknown, unknown> {
  return new t.Type<A, unknown, unknown>(codec.name, codec.is, (u, c) => (u == null ? t.failure(u, c, 'is required') : codec.validate(u, c)), codec.encode);
}

const isString = (u: unknown): u is string => typeof u === 'string';
const isNumber = (u: unknown): u is number => typeof u === 'number';
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

/**
 * Matches property names case-insensitively (clients of the original .NET service
 * send "Name", "QuantityInStock"), and refuses unknown and doubled properties:
 * a misspelt field silently taking its default would be a worse surprise.
 */
function canonicalProperties(body: Record<string, unknown>, errors: FieldErrors): Record<string, unknown> {
  const canonical: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const property = BY_LOWER_CASE.get(key.toLowerCase());
    if (!property) {
      errors[key] = ['is not a property of a product'];
    } else if (property in canonical) {
      errors[property] = ['is given more than once (property names are case-insensitive)'];
    } else {
      canonical[property] = value;
    }
  }
  return canonical;
}

export interface ProductBodyDecoded {
  readonly id: number;
  readonly details: ProductDetails;
}

/** Decodes a parsed JSON object into product details, or throws one ValidationError naming every bad field. */
export function decodeProductBody(body: Record<string, unknown>): ProductBodyDecoded {
  const errors: FieldErrors = {};
  const result = ProductBody.decode(canonicalProperties(body, errors));
  if (isLeft(result)) {
    for (const error of result.left) {
      const key = error.context[1]?.key ?? '';
      (errors[key] ??= []).push(error.message ?? 'is invalid');
    }
  }
  if (isLeft(result) || Object.keys(errors).length > 0) throw new ValidationError(errors);
  const { id, ...details } = result.right;
  return { id, details };
}

const ID_PATTERN = /^[1-9]\d{0,9}$/;

/** A path or query integer, or a ValidationError naming the parameter. */
export function decodeInteger(parameter: string, raw: unknown, min: number, max: number = INT32_MAX): number {
  const text = typeof raw === 'string' ? raw : undefined;
  const value = text !== undefined && (text === '0' || ID_PATTERN.test(text)) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new ValidationError({ [parameter]: [`must be an integer from ${min} to ${max}`] });
  }
  return value;
}
