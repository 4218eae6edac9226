import type { Clock } from '@platform/kernel';
import {
  InsufficientStockError,
  isRefusal,
  type MovementContext,
  NEEDS_PLAN,
  type Product,
  type ProductDetails,
  ProductNotFoundError,
  StockAtSeveralLocationsError,
  type StockUnitOfWork,
  VersionMismatchError,
} from '@stock/domain';
import { decided, DEFAULT_STOCK_CHANGE_SETTINGS, saveChange, type StockChangeSettings } from '../stock/stock-changes';
import { actorOf } from '../options';

export interface UpdateOptions {
  /** Update only if nobody changed the product since this version was read. */
  readonly expectedVersion?: number;
  readonly requestId?: string;
  /** Who asks: recorded as the actor of the movement. */
  readonly caller?: string;
}

export class UpdateProduct {
  constructor(
    private readonly unitOfWork: StockUnitOfWork,
    private readonly clock: Clock,
    private readonly settings: StockChangeSettings = DEFAULT_STOCK_CHANGE_SETTINGS,
  ) {}

  /**
   * Replaces the details (settings it leaves out stay); a new quantityInStock
   * is set at the default location, never below what is held there, and only
   * while the product has stock at no other location (ProductStock.replace
   * decides). Where the store can, a
   * PUT that is one plain change is made in one statement first
   * (replaceAtOnce); anything else, refusals included, is decided by the
   * transaction.
   */
  async execute(
    id: number,
    details: ProductDetails,
    { expectedVersion, requestId, caller }: UpdateOptions = {},
  ): Promise<Product> {
    const context = { at: this.clock(), requestId, actor: actorOf(caller) };
    const atOnce = await this.atOnce(id, details, expectedVersion, context);
    if (atOnce) return atOnce;
    return this.unitOfWork.run(async (tx) => {
      const stock = await tx.stock.lock(id);
      if (!stock) throw new ProductNotFoundError(id);
      if (expectedVersion !== undefined && stock.product.version !== expectedVersion)
        throw new VersionMismatchError(id, stock.product.version);
      const replacement = stock.replace(details.quantityInStock, this.settings);
      if (replacement && isRefusal(replacement)) {
        if (replacement.status === 'several-locations') throw new StockAtSeveralLocationsError(id);
        const { quantityInStock, reservedQuantity } = replacement;
        throw new InsufficientStockError(
          id,
          quantityInStock - reservedQuantity,
          details.quantityInStock - quantityInStock,
        );
      }
      const outcome = await tx.products.updateDetails(id, details.keepingSettingsOf(stock.product), expectedVersion);
      if (outcome.status === 'not-found') throw new ProductNotFoundError(id);
      if (outcome.status === 'version-mismatch') throw new VersionMismatchError(id, outcome.currentVersion);
      if (!replacement) return outcome.product;
      // Decided again on the product as its details now are: its low-stock threshold may be a new one.
      const change = decided(stock.withProduct(outcome.product).replace(details.quantityInStock, this.settings));
      return saveChange(tx, change, context, this.settings);
    });
  }

  /**
   * The PUT in one statement, when the store has it and it is one plain change; undefined otherwise. A PUT that
   * names a SKU takes the transaction, where the store checks it is free.
   */
  private async atOnce(
    id: number,
    details: ProductDetails,
    expectedVersion: number | undefined,
    context: MovementContext,
  ): Promise<Product | undefined> {
    // A PUT that names a SKU takes the transaction, where the store checks it is free; with webhook events on, every
    // change writes outbox rows, which the one statement does not.
    if (!this.unitOfWork.changesAtOnce || details.sku !== undefined || this.settings.webhookEvents) return undefined;
    const outcome = await this.unitOfWork.run(
      async (tx) =>
        (await tx.stock.replaceAtOnce?.(id, details, expectedVersion, context, this.settings)) ?? NEEDS_PLAN,
      { singleCall: true },
    );
    return outcome.status === 'changed' ? outcome.product : undefined;
  }
}
