import type { Money } from '@commerce/shared-kernel';

/** A product as the catalogue quotes it when an order is placed. */
export interface QuotedProduct {
  readonly id: number;
  readonly name: string;
  readonly price: Money;
}

/**
 * The stock service's catalogue, as sales reads it. An adapter that cannot
 * reach it throws UnavailableError: placing an order then records nothing.
 */
export interface ProductCatalog {
  /** The products among `ids` that exist. */
  quote(ids: readonly number[]): Promise<QuotedProduct[]>;
}
