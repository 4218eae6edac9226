import { type AdjustOutcome, Product, type ProductDetails, type ProductPageQuery, type ProductRepository, STOCK_MAX, STOCK_MIN, type UpdateOutcome } from '@stock/domain';

/**
 * Keeps products in this process only: for tests and demos, never for a service
 * that runs as more than one instance. Ids are never reused, as in the databases.
 * Each method reads and writes without awaiting in between, which makes it atomic
 * on Node's one thread.
 */
export class InMemoryProductRepository implements ProductRepository {
  // A Map iterates in insertion order and ids only grow, so iteration is id order.
  private readonly products = new Map<number, Product>();
  private lastId = 0;

  async add(details: ProductDetails): Promise<Product> {
    const product = Product.of(this.lastId + 1, details, 1);
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

  async update(id: number, details: ProductDetails, expectedVersion?: number): Promise<UpdateOutcome> {
    const current = this.products.get(id);
    if (!current) return { status: 'not-found' };
    if (expectedVersion !== undefined && current.version !== expectedVersion) return { status: 'version-mismatch', currentVersion: current.version };
    return { status: 'updated', product: this.replace(current, details) };
  }

  async adjustStock(id: number, delta: number): Promise<AdjustOutcome> {
    const current = this.products.get(id);
    if (!current) return { status: 'not-found' };
    const quantityInStock = current.quantityInStock + delta;
    if (quantityInStock < STOCK_MIN || quantityInStock > STOCK_MAX) return { status: 'out-of-bounds', available: current.quantityInStock };
    return { status: 'adjusted', product: this.replace(current, { ...current.details, quantityInStock }) };
  }

  async remove(id: number): Promise<boolean> {
    return this.products.delete(id);
  }

  private replace(current: Product, details: ProductDetails): Product {
    const product = Product.of(current.id, details, current.version + 1);
    this.products.set(product.id, product);
    return product;
  }
}
