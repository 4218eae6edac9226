import type { InMemoryTransaction } from '@platform/memory';
import {
  type AdjustOutcome,
  adjustmentRefusal,
  type HoldOutcome,
  holdRefusal,
  type MovementContext,
  type MovementKind,
  Product,
  type ProductDetails,
  type ProductPageQuery,
  type ProductRepository,
  removalRefusal,
  type RemoveOutcome,
  type Settlement,
  settlementRefusal,
  type UpdateOutcome,
  updateRefusal,
} from '@stock/domain';
import type { InMemoryStockTables } from './in-memory-stock-tables';

/**
 * Products in an in-memory table, seen through one transaction (writes are
 * staged there, movements with them) or through none (reads of committed
 * products only).
 */
export class InMemoryProductRepository implements ProductRepository {
  constructor(
    private readonly tables: InMemoryStockTables,
    private readonly tx?: InMemoryTransaction,
  ) {}

  async add(details: ProductDetails, context: MovementContext): Promise<Product> {
    const product = Product.of(this.tables.nextProductId(), details, 1);
    this.save(product, 'created', details.quantityInStock, 0, context);
    return product;
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

  async list({ after, limit }: ProductPageQuery): Promise<Product[]> {
    const page: Product[] = [];
    for (const product of this.tables.products.values(this.tx)) {
      if (page.length === limit) break;
      if (product.id > after) page.push(product);
    }
    return page;
  }

  async update(
    id: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
  ): Promise<UpdateOutcome> {
    const current = this.tables.products.get(id, this.tx);
    if (!current) return { status: 'not-found' };
    const refusal = updateRefusal(current, details.quantityInStock, expectedVersion);
    if (refusal) return refusal;
    const product = Product.of(id, details, current.version + 1, current.reservedQuantity);
    this.save(product, 'updated', details.quantityInStock - current.quantityInStock, 0, context);
    return { status: 'updated', product };
  }

  async adjustStock(id: number, delta: number, context: MovementContext): Promise<AdjustOutcome> {
    const current = this.tables.products.get(id, this.tx);
    if (!current) return { status: 'not-found' };
    const refusal = adjustmentRefusal(current, delta);
    if (refusal) return refusal;
    const details = current.details.withQuantityInStock(current.quantityInStock + delta);
    const product = Product.of(id, details, current.version + 1, current.reservedQuantity);
    this.save(product, 'adjusted', delta, 0, context);
    return { status: 'adjusted', product };
  }

  async remove(id: number): Promise<RemoveOutcome> {
    const current = this.tables.products.get(id, this.tx);
    if (!current) return { status: 'not-found' };
    const refusal = removalRefusal(current);
    if (refusal) return refusal;
    this.tables.products.delete(id, this.writable());
    return { status: 'removed' };
  }

  async hold(id: number, quantity: number, context: MovementContext): Promise<HoldOutcome> {
    const current = this.tables.products.get(id, this.tx);
    if (!current) return { status: 'not-found' };
    const refusal = holdRefusal(current, quantity);
    if (refusal) return refusal;
    const product = Product.of(id, current.details, current.version + 1, current.reservedQuantity + quantity);
    this.save(product, 'reserved', 0, quantity, context);
    return { status: 'held', product };
  }

  async settle(
    id: number,
    quantity: number,
    settlement: Settlement,
    context: MovementContext,
  ): Promise<Product | undefined> {
    const current = this.tables.products.get(id, this.tx);
    if (!current || settlementRefusal(current, quantity)) return undefined;
    const taken = settlement === 'committed' ? quantity : 0;
    const details = current.details.withQuantityInStock(current.quantityInStock - taken);
    const product = Product.of(id, details, current.version + 1, current.reservedQuantity - quantity);
    this.save(product, settlement, -taken, -quantity, context);
    return product;
  }

  /** Writes the product and, when a quantity moved, its movement: both staged in this transaction. */
  private save(
    product: Product,
    kind: MovementKind,
    quantityDelta: number,
    reservedDelta: number,
    context: MovementContext,
  ): void {
    const tx = this.writable();
    this.tables.products.set(product.id, product, tx);
    if (quantityDelta === 0 && reservedDelta === 0 && kind !== 'created') return;
    const id = this.tables.nextMovementId();
    this.tables.movements.set(
      id,
      {
        id,
        productId: product.id,
        kind,
        quantityDelta,
        reservedDelta,
        quantityAfter: product.quantityInStock,
        reservedAfter: product.reservedQuantity,
        at: context.at,
        ...(context.reason !== undefined && { reason: context.reason }),
        ...(context.reservationId !== undefined && { reservationId: context.reservationId }),
        ...(context.requestId !== undefined && { requestId: context.requestId }),
        ...(context.actor !== undefined && { actor: context.actor }),
      },
      tx,
    );
  }

  private writable(): InMemoryTransaction {
    if (!this.tx) throw new Error('Products are written inside a unit of work.');
    return this.tx;
  }
}
