import { Product, type ProductDetails, type ProductPageQuery, type ProductRepository } from '@stock/domain';

/**
 * Keeps products in this process only: for tests and demos, never for a service
 * that runs as more than one instance. Ids are never reused, as in the databases.
 */
export class InMemoryProductRepository implements ProductRepository {
  // A Map iterates in insertion order and ids only grow, so iteration is id order.
  private readonly products = new Map<number, Product>();
  private lastId = 0;

  async add(details: ProductDetails): Promise<Product> {
    const product = Product.of(this.lastId + 1, details);
    this.lastId = product.id;
    this.products.set(product.id, product);
    return product;
  }

  async findById(id: number): Promise<Product | undefined> {
    return this.products.get(id);
  }

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const page: Product[] = [];
    for (const product of this.products.values()) {
      if (page.length === limit) break;
      if (product.id > after) page.push(product);
    }
    return page;
  }

  async update(id: number, details: ProductDetails): Promise<Product | undefined> {
    if (!this.products.has(id)) return undefined;
    const product = Product.of(id, details);
    this.products.set(id, product);
    return product;
  }

  async remove(id: number): Promise<boolean> {
    return this.products.delete(id);
  }
}
