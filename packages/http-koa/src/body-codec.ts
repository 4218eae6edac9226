import { type FieldErrors, INT32_MAX, ValidationError } from '@stock/domain';
import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';

/** Why a value breaks a field's rule. */
export class Invalid {
  constructor(readonly message: string) {}
}

/** A field decoder that checks the JSON type, then the domain's own rule for the field. */
export function field<A, I>(name: string, isType: (u: unknown) => u is I, typeName: string, rule: (value: I) => A | Invalid): t.Type<A, unknown, unknown> {
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
export function checkedBy<T>(check: (value: T) => string | undefined, transform: (value: T) => T = (value) => value) {
  return (value: T): T | Invalid => {
    const problem = check(value);
    return problem ? new Invalid(problem) : transform(value);
  };
}

/** Absent (or null, as clients of nullable models send) takes the default; anything else must decode. */
export function optional<A, D extends A | undefined>(codec: t.Type<A, unknown, unknown>, fallback: D): t.Type<A | D, unknown, unknown> {
  return new t.Type<A | D, unknown, unknown>(codec.name, codec.is, (u, c) => (u == null ? t.success(fallback) : codec.validate(u, c)), (a) => a);
}

/** Absent or null is "is required", before any type check. */
export function required<A>(codec: t.Type<A, unknown, unknown>): t.Type<A, unknown, unknown> {
  return new t.Type<A, unknown, unknown>(codec.name, codec.is, (u, c) => (u == null ? t.failure(u, c, 'is required') : codec.validate(u, c)), codec.encode);
}

export const isString = (u: unknown): u is string => typeof u === 'string';
export const isNumber = (u: unknown): u is number => typeof u === 'number';

/**
 * Decodes a parsed JSON object with `codec`, or throws one ValidationError naming
 * every bad field. Property names match case-insensitively (clients of the .NET
 * service send "Name", "QuantityInStock"); unknown and doubled properties are
 * refused: a misspelt field silently taking its default would be a worse surprise.
 */
export function decodeBody<P extends t.Props>(codec: t.TypeC<P>, body: Record<string, unknown>, noun: string): t.TypeOf<t.TypeC<P>> {
  const errors: FieldErrors = {};
  const canonical: Record<string, unknown> = {};
  const byLowerCase = new Map(Object.keys(codec.props).map((name) => [name.toLowerCase(), name]));
  for (const [key, value] of Object.entries(body)) {
    const property = byLowerCase.get(key.toLowerCase());
    if (!property) {
      errors[key] = [`is not a property of ${noun}`];
    } else if (property in canonical) {
      errors[property] = ['is given more than once (property names are case-insensitive)'];
    } else {
      canonical[property] = value;
    }
  }
  const result = codec.decode(canonical);
  if (isLeft(result)) {
    for (const error of result.left) {
      const key = error.context[1]?.key ?? '';
      (errors[key] ??= []).push(error.message ?? 'is invalid');
    }
  }
  if (isLeft(result) || Object.keys(errors).length > 0) throw new ValidationError(errors);
  return result.right;
}

const POSITIVE_INTEGER = /^[1-9]\d{0,9}$/;

/** A path or query integer, or a ValidationError naming the parameter. */
export function decodeInteger(parameter: string, raw: unknown, min: number, max: number = INT32_MAX): number {
  const text = typeof raw === 'string' ? raw : undefined;
  const value = text !== undefined && (text === '0' || POSITIVE_INTEGER.test(text)) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new ValidationError({ [parameter]: [`must be an integer from ${min} to ${max}`] });
  }
  return value;
}
