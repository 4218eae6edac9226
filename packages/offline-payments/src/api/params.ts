import { invalidRequest } from '../stripe-error';
import type { FormParams, FormValue } from './form-body';

/** How one parameter is read, and whether a request must give it. */
export interface Param<T> {
  readonly required: boolean;
  read(value: FormValue, name: string): T;
}

export type ParamsOf<Spec> = { readonly [K in keyof Spec]: Spec[K] extends Param<infer T> ? T : never };

type Reader<T> = (value: FormValue, name: string) => T;

export const required = <T>(read: Reader<T>): Param<T> => ({ required: true, read });
export const optional = <T>(read: Reader<T>): Param<T | undefined> => ({ required: false, read });

/** Each parameter of `spec` read from `params`; an unknown one or a missing required one is Stripe's 400. */
export function readParams<Spec extends Record<string, Param<unknown>>>(
  params: FormParams,
  spec: Spec,
): ParamsOf<Spec> {
  const unknown = Object.keys(params).find((name) => !Object.hasOwn(spec, name));
  if (unknown !== undefined)
    throw invalidRequest(`Received unknown parameter: ${unknown}`, { code: 'parameter_unknown', param: unknown });
  const read: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(spec)) {
    const value = params[name];
    if (value === undefined) {
      if (param.required)
        throw invalidRequest(`Missing required param: ${name}.`, { code: 'parameter_missing', param: name });
      continue;
    }
    read[name] = param.read(value, name);
  }
  return read as ParamsOf<Spec>;
}

export const text: Reader<string> = (value, name) => {
  if (typeof value !== 'string' || value.length > 5000)
    throw invalidRequest(`Invalid string: ${name} must be a string of at most 5000 characters`, {
      code: 'parameter_invalid_string',
      param: name,
    });
  return value;
};

export const integer: Reader<number> = (value, name) => {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value))
    throw invalidRequest(`Invalid positive integer: ${name}`, { code: 'parameter_invalid_integer', param: name });
  return Number(value);
};

/** A three-letter ISO code, in lower case as Stripe keeps it. */
export const currency: Reader<string> = (value, name) => {
  if (typeof value !== 'string' || !/^[A-Za-z]{3}$/.test(value))
    throw invalidRequest(`Invalid currency: ${JSON.stringify(value)}.`, { param: name });
  return value.toLowerCase();
};

export function oneOf<const T extends string>(values: readonly T[]): Reader<T> {
  return (value, name) => {
    if (typeof value !== 'string' || !values.includes(value as T))
      throw invalidRequest(`Invalid ${name}: must be one of ${values.join(', ')}`, { param: name });
    return value as T;
  };
}

export const textList: Reader<string[]> = (value, name) => {
  if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string'))
    throw invalidRequest(`Invalid array: ${name} must be a list of strings`, { param: name });
  return value as string[];
};

/** Stripe's metadata: at most 50 keys of at most 40 characters, values of at most 500; an empty value sets nothing. */
export const metadata: Reader<Record<string, string>> = (value, name) => {
  if (value === '') return {};
  const entries = typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : undefined;
  const bad =
    !entries ||
    entries.length > 50 ||
    entries.some(([key, each]) => typeof each !== 'string' || key.length > 40 || each.length > 500);
  if (bad)
    throw invalidRequest(
      `Invalid ${name}: at most 50 keys of up to 40 characters, each with a string value of up to 500 characters`,
      { param: name },
    );
  return Object.fromEntries(entries.filter(([, each]) => each !== '')) as Record<string, string>;
};
