import type { InMemoryTransaction } from '@platform/memory';
import {
  type AppendedMovement,
  type LevelChange,
  type LevelView,
  type MovementContext,
  Product,
  type ProductStock,
  type ProductStockChange,
  STOCK_MAX,
  type StockApplication,
  type StockLevelRepository,
} from '@stock/domain';
import { appendMovement } from './in-memory-movements';
import { type InMemoryStockTables, type LevelRow, levelKey } from './in-memory-stock-tables';

/** A change `apply` refuses: the error a database's check constraint would raise, rolling the work back. */
export class StockGuardError extends Error {
  constructor(productId: number, why: string) {
    super(`Stock guard: product ${productId}: ${why}.`);
  }
}

/**
 * Stock by location in in-memory tables. Transactions run one at a time
 * here, so `lock` only reads; `apply` checks every change against the bounds
 * the SQL stores guard with conditional statements before it stages anything,
 * so a refused apply leaves nothing even in work that goes on after it.
 */
export class InMemoryStockLevelRepository implements StockLevelRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async lock(productId: number): Promise<ProductStock | undefined> {
    const product = this.tables.products.get(productId, this.tx);
    return product && { product, levels: this.tables.levelsOf(productId, this.tx) };
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

  async applyMany(applications: readonly StockApplication[], context: MovementContext): Promise<Product[]> {
    const after: Product[] = [];
    for (const { productId, changes, product } of applications)
      after.push(await this.apply(productId, changes, product, context));
    return after;
  }

  async apply(
    productId: number,
    changes: readonly LevelChange[],
    stockChange: ProductStockChange,
    context: MovementContext,
    appended?: AppendedMovement[],
  ): Promise<Product> {
    const tx = this.writable();
    const current = this.tables.products.get(productId, tx);
    if (!current) throw new StockGuardError(productId, 'it does not exist');
    const levels = new Map<number, LevelRow>();
    let { quantityInStock, reservedQuantity } = current;
    const moved: { change: LevelChange; level: LevelRow; quantityInStock: number; reservedQuantity: number }[] = [];
    for (const change of changes) {
      const level = this.levelFor(productId, change.locationId, levels);
      const next = {
        ...level,
        onHand: level.onHand + change.onHand,
        reserved: level.reserved + change.reserved,
        incoming: level.incoming + change.incoming,
      };
      quantityInStock += change.onHand;
      reservedQuantity += change.reserved;
      const broken = brokenBound(next, quantityInStock);
      if (broken) throw new StockGuardError(productId, `${change.kind} at location ${change.locationId} ${broken}`);
      levels.set(change.locationId, next);
      if (change.onHand !== 0 || change.reserved !== 0)
        moved.push({ change, level: next, quantityInStock, reservedQuantity });
    }
    const backorderedQuantity = current.backorderedQuantity + (stockChange.backordered ?? 0);
    if (backorderedQuantity < 0) throw new StockGuardError(productId, 'its backordered units would go below 0');
    const product = Product.of(
      productId,
      current.details.withQuantityInStock(quantityInStock),
      current.version + 1,
      reservedQuantity,
      { backorderedQuantity, lowStockAlert: stockChange.lowStockAlert ?? current.stock.lowStockAlert },
    );
    this.tables.products.set(productId, product, tx);
    for (const row of levels.values()) this.tables.levels.set(levelKey(productId, row.locationId), row, tx);
    for (const { change, level, ...after } of moved) {
      const movement = appendMovement(this.tables, tx, { id: productId, ...after }, change, context, level);
      appended?.push(movement);
    }
    return product;
  }

  /** The level a change starts from: as an earlier change of the same apply left it, as stored, or a new one. */
  private levelFor(productId: number, locationId: number, pending: Map<number, LevelRow>): LevelRow {
    const level = pending.get(locationId) ?? this.tables.levels.get(levelKey(productId, locationId), this.tx);
    if (level) return level;
    // As the level's foreign key to its location.
    if (!this.tables.locations.get(locationId, this.tx))
      throw new StockGuardError(productId, `location ${locationId} does not exist`);
    return { productId, locationId, onHand: 0, reserved: 0, incoming: 0 };
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Stock levels are written inside a unit of work.');
    return this.tx;
  }
}

/** Which bound of stock_level's checks (and the product's stock column) a level would break, if any. */
function brokenBound(level: LevelRow, quantityInStock: number): string | undefined {
  if (level.reserved < 0) return 'would take reserved below 0';
  if (level.onHand < level.reserved) return 'would take onHand below reserved (or below 0)';
  if (level.incoming < 0) return 'would take incoming below 0';
  if (quantityInStock > STOCK_MAX) return `would take the product's stock above ${STOCK_MAX}`;
  return undefined;
}
