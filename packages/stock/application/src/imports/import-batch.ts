import { newEvent } from '@commerce/contracts';
import { DomainError, ValidationError } from '@platform/kernel';
import {
  DEFAULT_LOCATION_ID,
  type DetailsUpdate,
  isRefusal,
  levelAvailable,
  type Location,
  type MovementContext,
  type Product,
  ProductDetails,
  ProductStock,
  STOCK_MAX,
  type StockChange,
  type StockTransaction,
} from '@stock/domain';
import { decided, type StockChangeSettings } from '../stock/stock-changes';
import { newProductDetails, problemsOf, type ProductRowInput } from './import-row';

export type RowOutcome = 'created' | 'updated' | 'unchanged';

export interface NumberedRow {
  readonly row: number;
  readonly input: ProductRowInput;
}

export interface RowError {
  readonly row: number;
  readonly problems: readonly string[];
}

/** What a batch's rows did: how many of each outcome, and the rows that failed. */
export interface BatchOutcome {
  readonly counts: Record<RowOutcome, number>;
  readonly failures: RowError[];
}

/**
 * A store refused a row while its batch ran (a SKU taken meanwhile). Its error may leave the transaction unusable (as
 * on PostgreSQL): the transaction rolls back, the row is reported, and the batch runs again without it.
 */
export interface RowRefused {
  readonly refused: 'row';
  readonly failure: RowError;
}

/** A store refused one of a batch's set-based writes, naming no row: it rolls back and runs again a row at a time. */
export interface BatchRefused {
  readonly refused: 'batch';
}

/** A store's refusal (a DomainError its write throws, such as a SKU taken meanwhile), as a value. */
export class StoreRefusal {
  constructor(readonly error: DomainError) {}
}

/**
 * The write's answer, or the store's refusal of it as a value: the ports refuse by throwing, and this is the one place
 * the import turns that into the row's (or the batch's) answer. Any other failure goes on as it is.
 */
export async function refusedByStore<T>(write: Promise<T>): Promise<T | StoreRefusal> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof DomainError) return new StoreRefusal(error as DomainError);
    throw error;
  }
}

/** One row's answer when it goes through the one-row path (applyRow), after the batch's set-based writes. */
export type ApplyRow = (row: NumberedRow) => Promise<RowOutcome | RowError | RowRefused>;

/** An on-hand change the batch will make at a location, decided once the product's details are written. */
interface PlannedChange {
  readonly stock: ProductStock;
  readonly locationId: number;
  readonly delta: number;
}

interface PlannedCreate {
  readonly details: ProductDetails;
  readonly locationId: number;
  readonly onHand: number;
}

/** Whether applying `input` to `product` would change none of its fields. */
export function sameDetails(product: Product, input: ProductRowInput): boolean {
  return (
    (input.sku === undefined || input.sku === product.sku) &&
    (input.name === undefined || input.name === product.name) &&
    (input.description === undefined || input.description === product.description) &&
    (input.price === undefined || input.price.equals(product.price)) &&
    (input.backorderLimit === undefined || input.backorderLimit === product.backorderLimit) &&
    (input.lowStockThreshold === undefined || input.lowStockThreshold === product.lowStockThreshold)
  );
}

/** Why a planned on-hand change at a location is refused, in a row's words. */
/** A product's details as a row changes them (an absent field left as it is), or why they cannot be. */
export function updatedDetails(product: Product, input: ProductRowInput): ProductDetails | ValidationError {
  return ProductDetails.check({
    name: input.name ?? product.name,
    description: input.description ?? product.description,
    price: input.price ?? product.price,
    quantityInStock: product.quantityInStock,
    backorderLimit: input.backorderLimit ?? product.backorderLimit,
    lowStockThreshold: input.lowStockThreshold ?? product.lowStockThreshold,
    sku: input.sku ?? product.sku,
  });
}

/** What an import may not set a level's on hand below: its units in any set-aside state. */
function setAsideAt(stock: ProductStock, locationId: number): number {
  const level = stock.levelAt(locationId);
  return level.onHand - levelAvailable(level);
}

export function onHandProblem(stock: ProductStock, locationId: number, status: string): string {
  return status === 'below-minimum'
    ? `onHand: must be at least ${setAsideAt(stock, locationId)}, the units held, committed, in quality control or damaged there`
    : `onHand: would take the product's stock above ${STOCK_MAX}`;
}

/**
 * A batch of rows set-based: the products they name read in two statements
 * (by SKU, then locked by id in id order with their levels), every row planned
 * in memory by the ProductStock aggregate (adjust, and the low-stock crossing
 * it causes), then written in a few statements for the whole batch: the details, the new
 * products, one `imported` change per product (each its movement). A row the
 * batch cannot settle alone goes through the one-row path after them: a second
 * row for a product or a SKU of the batch, stock arriving where backorders
 * wait (fills), a SKU another row frees or takes; and so does every later row
 * that names the same product or SKU, so each product's rows apply in order.
 */
export class ImportBatch {
  private readonly counts = { created: 0, updated: 0, unchanged: 0 };
  private readonly failures: RowError[] = [];
  private readonly stocks = new Map<number, ProductStock>();
  /** Lower-case SKU -> the product that has it as the batch plans, or 'new' for a row's product not yet stored. */
  private readonly skuOwners = new Map<string, number | 'new'>();
  /** SKUs a row of the batch gives up: one taken again within the batch is left to the one-row path. */
  private readonly freed = new Set<string>();
  /** Products and SKUs a row of the batch planned or left to the one-row path. */
  private readonly touched = new Set<number | string>();
  private readonly deferred: NumberedRow[] = [];
  private readonly updates: DetailsUpdate[] = [];
  private readonly changes = new Map<number, PlannedChange>();
  private readonly creates: PlannedCreate[] = [];

  constructor(
    private readonly tx: StockTransaction,
    private readonly locations: ReadonlyMap<string, Location>,
    private readonly context: MovementContext,
    private readonly settings: StockChangeSettings,
  ) {}

  /** What the batch did, or the store's refusal that ends its transaction. */
  async run(rows: readonly NumberedRow[], applyRow: ApplyRow): Promise<BatchOutcome | RowRefused | BatchRefused> {
    await this.read(rows);
    for (const row of rows) {
      const outcome = this.plan(row);
      if (outcome === 'deferred') continue;
      if (typeof outcome === 'string') this.counts[outcome] += 1;
      else this.failures.push(outcome);
    }
    if ((await refusedByStore(this.write())) instanceof StoreRefusal) return { refused: 'batch' };
    for (const row of this.deferred) {
      const outcome = await applyRow(row);
      if (typeof outcome === 'string') this.counts[outcome] += 1;
      else if ('refused' in outcome) return outcome;
      else this.failures.push(outcome);
    }
    return { counts: this.counts, failures: this.failures };
  }

  /** The products the rows name, by SKU then by id, locked in id order with their levels. */
  private async read(rows: readonly NumberedRow[]): Promise<void> {
    const skus = rows.flatMap(({ input }) => (input.sku === undefined ? [] : [input.sku]));
    const bySku = await this.tx.products.findManyBySku(skus);
    const ids = rows.flatMap(({ input }) => (input.id === undefined ? [] : [input.id]));
    for (const stock of await this.tx.stock.lockMany([...ids, ...bySku.map(({ id }) => id)])) {
      this.stocks.set(stock.product.id, stock);
      if (stock.product.sku !== null) this.skuOwners.set(stock.product.sku.toLowerCase(), stock.product.id);
    }
  }

  /** Leaves the row to the one-row path, with every later row naming its product or SKUs. */
  private defer(row: NumberedRow, found?: ProductStock): 'deferred' {
    this.deferred.push(row);
    const owner = row.input.sku === undefined ? undefined : this.skuOwners.get(row.input.sku.toLowerCase());
    const stock = found ?? this.stocks.get(row.input.id ?? (typeof owner === 'number' ? owner : 0)) ?? undefined;
    if (row.input.sku !== undefined) this.touched.add(row.input.sku.toLowerCase());
    if (stock) {
      this.touched.add(stock.product.id);
      if (stock.product.sku !== null) this.touched.add(stock.product.sku.toLowerCase());
    }
    return 'deferred';
  }

  private plan(numbered: NumberedRow): RowOutcome | RowError | 'deferred' {
    const { row, input } = numbered;
    const fail = (...problems: string[]): RowError => ({ row, problems });
    const sku = input.sku?.toLowerCase();
    if ((sku !== undefined && this.touched.has(sku)) || (input.id !== undefined && this.touched.has(input.id)))
      return this.defer(numbered);
    const locationId =
      input.locationCode === undefined ? DEFAULT_LOCATION_ID : this.locations.get(input.locationCode)?.id;
    if (locationId === undefined) return fail(`locationCode: no location has the code '${input.locationCode}'`);
    let stock: ProductStock | undefined;
    if (input.id !== undefined) {
      stock = this.stocks.get(input.id);
      if (!stock) return fail(`id: no product has the id ${input.id}`);
    } else if (sku !== undefined) {
      const owner = this.skuOwners.get(sku);
      if (owner === 'new' || (owner === undefined && this.freed.has(sku))) return this.defer(numbered);
      stock = owner === undefined ? undefined : this.stocks.get(owner);
    }
    return stock ? this.planUpdate(numbered, stock, locationId, fail) : this.planCreate(input, locationId, fail);
  }

  private planCreate(
    input: ProductRowInput,
    locationId: number,
    fail: (...problems: string[]) => RowError,
  ): RowOutcome | RowError {
    const details = newProductDetails(input);
    if (Array.isArray(details)) return fail(...details);
    if (input.sku !== undefined) this.skuOwners.set(input.sku.toLowerCase(), 'new');
    this.creates.push({ details, locationId, onHand: input.onHand ?? 0 });
    return 'created';
  }

  private planUpdate(
    numbered: NumberedRow,
    stock: ProductStock,
    locationId: number,
    fail: (...problems: string[]) => RowError,
  ): RowOutcome | RowError | 'deferred' {
    const { input } = numbered;
    const { product } = stock;
    const sku = input.sku?.toLowerCase();
    const skuChanges = sku !== undefined && sku !== product.sku?.toLowerCase();
    if (skuChanges) {
      const owner = this.skuOwners.get(sku);
      if (owner === 'new' || this.freed.has(sku)) return this.defer(numbered, stock);
      // Found by id, a row may give the product a SKU: one another product has is the row's problem, not a refusal.
      if (owner !== undefined && owner !== product.id) {
        const taken = this.stocks.get(owner)?.product.sku ?? input.sku;
        return fail(`sku: product ${owner} has the SKU '${taken}' (SKUs are compared ignoring case)`);
      }
    }
    const delta = input.onHand === undefined ? 0 : input.onHand - stock.levelAt(locationId).onHand;
    const imported = delta === 0 ? undefined : stock.adjust(locationId, delta, this.settings, { kind: 'imported' });
    if (imported && isRefusal(imported)) return fail(onHandProblem(stock, locationId, imported.status));
    const same = sameDetails(product, input);
    if (same && !imported) return 'unchanged';
    // Stock arriving where backorders wait fills them (ProductStock.fill): the one-row path does that.
    if (imported && stock.fillsOnArrival(delta)) return this.defer(numbered, stock);
    if (!same) {
      const details = updatedDetails(product, input);
      if (details instanceof ValidationError) return fail(...problemsOf(details));
      this.updates.push({ id: product.id, details, expectedVersion: product.version });
      if (skuChanges) {
        const before = product.sku?.toLowerCase();
        if (before !== undefined) {
          this.skuOwners.delete(before);
          this.freed.add(before);
        }
        this.skuOwners.set(sku, product.id);
      }
    }
    if (imported) this.changes.set(product.id, { stock, locationId, delta });
    this.touched.add(product.id);
    if (product.sku !== null) this.touched.add(product.sku.toLowerCase());
    if (sku !== undefined) this.touched.add(sku);
    return 'updated';
  }

  /**
   * The batch's writes: the details, the new products, then one change per product (decided on the product as its
   * details now are: its low-stock threshold may be a new one) and the low-stock events they cause.
   */
  private async write(): Promise<void> {
    const updated = new Map((await this.tx.products.updateDetailsMany(this.updates)).map((p) => [p.id, p]));
    if (updated.size !== this.updates.length)
      throw new Error('A product locked for the import was not at the version its lock read.');
    const created = await this.tx.products.addMany(
      this.creates.map(({ details }) => details),
      this.context,
    );
    const changes: StockChange[] = [];
    for (const { stock, locationId, delta } of this.changes.values()) {
      const current = stock.withProduct(updated.get(stock.product.id) ?? stock.product);
      changes.push(decided(current.adjust(locationId, delta, this.settings, { kind: 'imported' })));
    }
    for (const [index, product] of created.entries()) {
      const { locationId, onHand } = this.creates[index]!;
      if (onHand === 0) continue;
      const imported = ProductStock.ofNew(product).adjust(locationId, onHand, this.settings, { kind: 'imported' });
      if (isRefusal(imported)) throw new Error(`A new product refused ${onHand} units: ${imported.status}.`);
      changes.push(imported);
    }
    await this.tx.stock.saveMany(changes, this.context);
    for (const change of changes)
      for (const { signal } of change.steps)
        if (signal) {
          const data = { productId: change.productId, available: signal.available, threshold: signal.threshold };
          await this.tx.outbox.add(newEvent(signal.event, data, this.context.at));
        }
  }
}
