import type { Product, ProductPageQuery, ProductRepository } from '@stock/domain';

export interface ProductPage {
  readonly items: Product[];
  /** The `after` of the next page, when there is one. */
  readonly nextAfter?: number;
}

/** A page of a list in the API: `limit` from 1 to MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE when not given. */
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

export class ListProducts {
  constructor(private readonly products: ProductRepository) {}

  /** One keyset page; asks for one row more than the page to know whether another follows. */
  async execute(query: ProductPageQuery): Promise<ProductPage> {
    const rows = await this.products.list({ ...query, limit: query.limit + 1 });
    if (rows.length <= query.limit) return { items: rows };
    const items = rows.slice(0, query.limit);
    return { items, nextAfter: items[items.length - 1]!.id };
  }
}
