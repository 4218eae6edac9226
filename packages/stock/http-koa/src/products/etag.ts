import { ValidationError } from '@platform/kernel';
import { INT32_MAX, type Product } from '@stock/domain';

/** A strong ETag: the product's version, which every write moves on. */
export function etagOf(product: Product): string {
  return `"${product.version}"`;
}

export type Preconditions =
  { readonly kind: 'any' } | { readonly kind: 'versions'; readonly versions: readonly number[] };

const ENTITY_TAG = /^(W\/)?"([^"]*)"$/;

/**
 * Reads If-Match or If-None-Match: "*" or a list of entity tags. Weak tags
 * (W/"3") never match under If-Match's strong comparison: `strong` drops them.
 */
export function parsePreconditions(header: string, name: string, strong: boolean): Preconditions {
  if (header.trim() === '*') return { kind: 'any' };
  const versions: number[] = [];
  for (const tag of header.split(',').map((part) => part.trim())) {
    const match = ENTITY_TAG.exec(tag);
    if (!match) throw new ValidationError({ [name]: ['must be * or a list of entity tags such as "3"'] });
    const [, weak, opaque = ''] = match;
    const version = /^\d{1,10}$/.test(opaque) ? Number(opaque) : Number.NaN;
    if ((weak && strong) || !(version >= 1 && version <= INT32_MAX)) continue; // never one of ours: cannot match
    versions.push(version);
  }
  return { kind: 'versions', versions };
}

export function matches(preconditions: Preconditions, product: Product): boolean {
  return preconditions.kind === 'any' || preconditions.versions.includes(product.version);
}
