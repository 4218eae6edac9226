import type { Product, ProductDetails } from './product';

export interface ProductPageQuery {
  /** Only products whose id is greater than this (0 for the first page). */
  readonly after: number;
  readonly limit: number;
}

/** The port every persistence adapter implements. Details arrive already validated. */
export interface ProductRepository {
  /** Stores a new product and answers it with the id the store assigned. */
  add(details: ProductDetails): Promise<Product>;
  findById(id: number): Promise<Product | undefined>;
  /** Products in ascending id order, after a given id. */
  list(query: ProductPageQuery): Promise<Product[]>;
  /** Replaces a product's details; undefined when there is no such product. */
  update(id: number, details: ProductDetails): Promise<Product | undefined>;
  /** Answers whether a product was removed. */
  remove(id: number): Promise<boolean>;
}
