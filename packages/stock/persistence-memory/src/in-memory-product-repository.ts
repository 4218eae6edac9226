import type { InMemoryTable, InMemoryTransaction } from '@platform/memory';
import { type AdjustOutcome, Product, type ProductDetails, type ProductPageQuery, type ProductRepository, STOCK_MAX, STOCK_MIN, type UpdateOutcome } from '@stock/domain';

/**
 * Products in an in-memory table, seen through one transaction (writes are
 * staged there) or through none (reads of committed products only). Ids come
 * from a sequence that never hands one out twice, as in the databases.
 */
export class InMemoryProductRepository implements ProductRepository {
  constructor(
    private readonly table: InMemoryTable<number, Product>,
    private readonly nextId: () => number,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async add(details: ProductDetails): Promise<Product> {
    const product = Product.of(this.nextId(), details, 1);
    this.table.set(product.id, product, this.writable());
    return product;
  }

  async findById(id: number): Promise<Product | undefined> {
    return this.table.get(id, this.tx);
  }

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const page: Product[] = [];
    for (const product of this.table.values(this.tx)) {
      if (page.length === limit) break;
      if (product.id > after) page.push(product);
    }
    return page;
  }

  async update(id: number, details: ProductDetails, expectedVersion?: number): Promise<UpdateOutcome> {
    const current = this.table.get(id, this.tx);
    if (!current) return { status: 'not-found' };
    if (expectedVersion !== undefined && current.version !== expectedVersion) return { status: 'version-mismatch', currentVersion: current.version };
    return { status: 'updated', product: this.replace(current, details) };
  }

  async adjustStock(id: number, delta: number): Promise<AdjustOutcome> {
    const current = this.table.get(id, this.tx);
    if (!current) return { status: 'not-found' };
    const quantityInStock = current.quantityInStock + delta;
    if (quantityInStock < STOCK_MIN) return { status: 'below-minimum', available: current.quantityInStock };
    if (quantityInStock > STOCK_MAX) return { status: 'above-maximum', available: current.quantityInStock };
    return { status: 'adjusted', product: this.replace(current, current.details.withQuantityInStock(quantityInStock)) };
  }

  async remove(id: number): Promise<boolean> {
    return this.table.delete(id, this.writable());
  }

  private replace(current: Product, details: ProductDetails): Product {
    const product = Product.of(current.id, details, current.version + 1);
    this.table.set(product.id, product, this.writable());
    return product;
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Products are written inside a unit of work.');
    return this.tx;
  }
}
