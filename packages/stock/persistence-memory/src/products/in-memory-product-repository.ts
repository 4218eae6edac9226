import type { InMemoryTransaction } from '@platform/persistence/memory';
import {
  type DetailsUpdate,
  DEFAULT_LOCATION_ID,
  type MovementContext,
  Product,
  type ProductDetails,
  type ProductPageQuery,
  type ProductRepository,
  type ProductSearch,
  ProductStock,
  SkuTakenError,
  type UpdateOutcome,
} from '@stock/domain';
import { appendMovements } from '../ledger/in-memory-movements';
import { searchProducts } from './in-memory-product-search';
import { type InMemoryStockTables, levelKey } from '../in-memory-stock-tables';

/**
 * Products in an in-memory table, seen through one transaction (writes are
 * staged there, with their levels and movements) or through none (reads of
 * committed products only).
 */
export class InMemoryProductRepository implements ProductRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async add(details: ProductDetails, context: MovementContext): Promise<Product> {
    const tx = this.writable();
    this.refuseTakenSku(details.sku, undefined);
    const product = Product.of(this.tables.nextProductId(), details, 1);
    this.tables.products.set(product.id, product, tx);
    const [level] = ProductStock.ofNew(product).levels;
    this.tables.levels.set(levelKey(product.id, DEFAULT_LOCATION_ID), { productId: product.id, ...level! }, tx);
    // Unlike a level change, creation is recorded even with no stock: the ledger starts with it.
    appendMovements(this.tables, tx, product.id, [ProductStock.opening(details)], context);
    return product;
  }

  /** One add after the other: the memory store's transaction undoes them all when one throws. */
  async addMany(details: readonly ProductDetails[], context: MovementContext): Promise<Product[]> {
    const added: Product[] = [];
    for (const each of details) added.push(await this.add(each, context));
    return added;
  }

  async findById(id: number): Promise<Product | undefined> {
    return this.tables.products.get(id, this.tx);
  }

  async findMany(ids: readonly number[]): Promise<Product[]> {
    return [...new Set(ids)]
      .sort((a, b) => a - b)
      .map((id) => this.tables.products.get(id, this.tx))
      .filter((product): product is Product => product !== undefined);
  }

  async list({ after, limit, stockState }: ProductPageQuery): Promise<Product[]> {
    const page: Product[] = [];
    for (const product of this.tables.products.values(this.tx)) {
      if (page.length === limit) break;
      if (product.id > after && (stockState === undefined || product.stockState === stockState)) page.push(product);
    }
    return page;
  }

  async findBySku(sku: string): Promise<Product | undefined> {
    const wanted = sku.toLowerCase();
    for (const product of this.tables.products.values(this.tx))
      if (product.sku?.toLowerCase() === wanted) return product;
    return undefined;
  }

  async findManyBySku(skus: readonly string[]): Promise<Product[]> {
    const wanted = new Set(skus.map((sku) => sku.toLowerCase()));
    if (wanted.size === 0) return [];
    const found: Product[] = [];
    for (const product of this.tables.products.values(this.tx))
      if (product.sku !== null && wanted.has(product.sku.toLowerCase())) found.push(product);
    return found.sort((a, b) => a.id - b.id);
  }

  async search(query: ProductSearch): Promise<Product[]> {
    return searchProducts(this.tables, this.tx, query);
  }

  async updateDetails(
    id: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
  ): Promise<UpdateOutcome> {
    const current = this.tables.products.get(id, this.tx);
    if (!current) return { status: 'not-found' };
    if (expectedVersion !== undefined && current.version !== expectedVersion)
      return { status: 'version-mismatch', currentVersion: current.version };
    const kept = details.withQuantityInStock(current.quantityInStock).keepingSettingsOf({
      backorderLimit: current.backorderLimit,
      lowStockThreshold: current.lowStockThreshold,
      sku: current.sku,
    });
    this.refuseTakenSku(kept.sku, id);
    const product = Product.of(id, kept, current.version + 1, current.reservedQuantity, current.stock);
    this.tables.products.set(id, product, this.writable());
    return { status: 'updated', product };
  }

  async updateDetailsMany(updates: readonly DetailsUpdate[]): Promise<Product[]> {
    const updated: Product[] = [];
    for (const { id, details, expectedVersion } of updates) {
      const outcome = await this.updateDetails(id, details, expectedVersion);
      if (outcome.status === 'updated') updated.push(outcome.product);
    }
    return updated;
  }

  /** Removes the product with its levels and its lines' holds, as the databases' cascades do. */
  async remove(id: number, version: number): Promise<boolean> {
    const product = this.tables.products.get(id, this.tx);
    if (product?.version !== version) return false;
    const tx = this.writable();
    this.tables.products.delete(id, tx);
    for (const [key, row] of [...this.tables.levels.entries(tx)])
      if (row.productId === id) this.tables.levels.delete(key, tx);
    for (const table of [this.tables.allocations, this.tables.backorders])
      for (const [key, row] of [...table.entries(tx)]) if (row.productId === id) table.delete(key, tx);
    return true;
  }

  /** The databases' unique index on lower(sku), as a check: another product with this SKU in any case refuses it. */
  private refuseTakenSku(sku: string | null | undefined, ownId: number | undefined): void {
    if (sku == null) return;
    const holder = [...this.tables.products.values(this.tx)].find(
      (product) => product.id !== ownId && product.sku?.toLowerCase() === sku.toLowerCase(),
    );
    if (holder) throw new SkuTakenError(sku);
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Products are written inside a unit of work.');
    return this.tx;
  }
}
