import type { InMemoryTransaction } from '@platform/persistence/memory';
import {
  type AppendedMovement,
  type LevelView,
  levelIsValid,
  type MovementContext,
  ProductStock,
  type ProductStockRepository,
  type StockChange,
} from '@stock/domain';
import { appendMovements } from '../ledger/in-memory-movements';
import { type InMemoryStockTables, levelKey } from '../in-memory-stock-tables';

/** A change the store refuses to keep: what a database's row lock or check constraint would refuse. */
export class StockGuardError extends Error {
  constructor(productId: number, why: string) {
    super(`Stock guard: product ${productId}: ${why}.`);
  }
}

/**
 * Products' stock in in-memory tables. Transactions run one at a time here,
 * so `lock` only reads. `save` writes what the aggregate decided as it is:
 * the product and levels of `change.after`, and its movements appended to the
 * ledger. As the databases do, it keeps only the invariants they declare: the
 * change must start from the product's version as stored (the row lock's
 * promise), and every level it writes must be valid (levelIsValid, the
 * databases' checks); anything else is refused before anything is staged.
 */
export class InMemoryProductStockRepository implements ProductStockRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async lock(productId: number): Promise<ProductStock | undefined> {
    const product = this.tables.products.get(productId, this.tx);
    if (!product) return undefined;
    const sequence = this.tables.movementSequences.get(productId, this.tx) ?? 0;
    return ProductStock.of(product, this.tables.levelsOf(productId, this.tx), sequence);
  }

  async lockMany(productIds: readonly number[]): Promise<ProductStock[]> {
    const stocks: ProductStock[] = [];
    for (const productId of [...new Set(productIds)].sort((a, b) => a - b)) {
      const stock = await this.lock(productId);
      if (stock) stocks.push(stock);
    }
    return stocks;
  }

  async list(productId: number): Promise<LevelView[] | undefined> {
    if (!this.tables.products.get(productId, this.tx)) return undefined;
    return this.tables.levelsOf(productId, this.tx).map((level) => ({
      ...level,
      locationCode: this.tables.locations.get(level.locationId, this.tx)!.code,
    }));
  }

  async listMany(productIds: readonly number[]): Promise<ReadonlyMap<number, LevelView[]>> {
    const levels = new Map<number, LevelView[]>();
    for (const productId of productIds) {
      const list = await this.list(productId);
      if (list) levels.set(productId, list);
    }
    return levels;
  }

  async save(change: StockChange, context: MovementContext): Promise<AppendedMovement[]> {
    const tx = this.writable();
    const { product, levels } = change.after;
    const stored = this.tables.products.get(product.id, tx);
    if (stored?.version !== change.before.product.version)
      throw new StockGuardError(product.id, `it is not at version ${change.before.product.version} any more`);
    for (const level of levels) {
      if (!levelIsValid(level)) throw new StockGuardError(product.id, `its level at ${level.locationId} is not valid`);
      // As the level's foreign key to its location.
      if (!this.tables.locations.get(level.locationId, tx))
        throw new StockGuardError(product.id, `location ${level.locationId} does not exist`);
    }
    this.tables.products.set(product.id, product, tx);
    for (const level of levels)
      this.tables.levels.set(levelKey(product.id, level.locationId), { productId: product.id, ...level }, tx);
    return appendMovements(this.tables, tx, product.id, change.movements, context);
  }

  async saveMany(changes: readonly StockChange[], context: MovementContext): Promise<void> {
    for (const change of changes) await this.save(change, context);
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Stock is written inside a unit of work.');
    return this.tx;
  }
}
