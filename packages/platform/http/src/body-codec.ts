import { type FieldErrors, INT32_MAX, Invalid, type Parser, ValidationError } from '@platform/kernel';
import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';

/** Re-exported for the routers, which bound their query parameters by it. */
export { INT32_MAX };

/**
 * A field decoder: checks the JSON type, then hands the value to the domain's
 * parser for the field, so the edge decodes straight into domain values and
 * every rule stays written once, in the domain.
 */
export function field<A, I>(
  name: string,
  isType: (u: unknown) => u is I,
  typeName: string,
  parse: Parser<I, A>,
): t.Type<A, unknown, unknown> {
  return new t.Type<A, unknown, unknown>(
    name,
    (_u): _u is A => false,
    (u, context) => {
      if (!isType(u)) return t.failure(u, context, `must be ${typeName}`);
      const result = parse(u);
      return result instanceof Invalid ? t.failure(u, context, result.message) : t.success(result);
    },
    (a) => a,
  );
}

/** Absent (or null, as clients of nullable models send) takes the default; anything else must decode. */
export function optional<A, D extends A | undefined>(
  codec: t.Type<A, unknown, unknown>,
  fallback: D,
): t.Type<A | D, unknown, unknown> {
  return new t.Type<A | D, unknown, unknown>(
    codec.name,
    codec.is,
    (u, c) => (u == null ? t.success(fallback) : codec.validate(u, c)),
    (a) => a,
  );
}

/** Absent or null is "is required", before any type check. */
export function required<A>(codec: t.Type<A, unknown, unknown>): t.Type<A, unknown, unknown> {
  return new t.Type<A, unknown, unknown>(
    codec.name,
    codec.is,
    (u, c) => (u == null ? t.failure(u, c, 'is required') : codec.validate(u, c)),
    codec.encode,
  );
}

export const isString = (u: unknown): u is string => typeof u === 'string';
export const isNumber = (u: unknown): u is number => typeof u === 'number';

const lowerCaseNames = new WeakMap<t.Props, ReadonlyMap<string, string>>();

/** A codec's property names by their lower case, worked out once per codec. */
function lowerCaseNamesOf(codec: { readonly props: t.Props }): ReadonlyMap<string, string> {
  let names = lowerCaseNames.get(codec.props);
  if (!names)
    lowerCaseNames.set(
      codec.props,
      (names = new Map(Object.keys(codec.props).map((name) => [name.toLowerCase(), name]))),
    );
  return names;
}

/**
 * Decodes a parsed JSON object with `codec`, or throws one ValidationError naming
 * every bad field. Property names match case-insensitively (clients of .NET
 * services send "Name", "QuantityInStock"); unknown properties (`__proto__`
 * too) and a property given twice in two casings are refused: a misspelt field
 * silently taking its default would be a worse surprise. The same name given
 * twice exactly never gets here: jsonObjectBody refuses it while reading.
 */
export function decodeBody<P extends t.Props>(
  codec: t.TypeC<P>,
  body: Record<string, unknown>,
  noun: string,
): t.TypeOf<t.TypeC<P>> {
  // No prototype: a client's key "__proto__" must become an entry, not this object's prototype.
  const errors: FieldErrors = Object.create(null) as FieldErrors;
  const canonical: Record<string, unknown> = {};
  const byLowerCase = lowerCaseNamesOf(codec);
  for (const [key, value] of Object.entries(body)) {
    const property = byLowerCase.get(key.toLowerCase());
    if (!property) {
      errors[key] = [`is not a property of ${noun}`];
    } else if (Object.hasOwn(canonical, property)) {
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
