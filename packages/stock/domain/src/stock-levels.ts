import { isProductId } from '@commerce/shared-kernel';
import { allValid, INT32_MAX, Invalid } from '@platform/kernel';
import { DEFAULT_LOCATION_ID, isLocationId, type Location } from './location';
import { type Product, text } from './product';
import type { MovementKind } from './stock-movement';
import { STOCK_MAX } from './stock-rules';

/**
 * The stock rules by location: what may be held, allocated, transferred and
 * filled. Each plan reads a product's levels as its transaction locked them
 * (StockLevelRepository.lock) and answers either the changes to make or why
 * none may be made; the stores apply the changes with conditional statements
 * that refuse anything these rules would (the atomic guard), so a plan made
 * from a stale read fails instead of overselling.
 */

/** A product's stock at one location. */
export interface LocationLevel {
  readonly locationId: number;
  /** Units physically there. */
  readonly onHand: number;
  /** Of those, the units holds took: never above onHand. */
  readonly reserved: number;
  /** Units on their way there by transfer, not yet received. */
  readonly incoming: number;
}

/** A product as its transaction locked it, with its level at every location it has one (in location id order). */
export interface ProductStock {
  readonly product: Product;
  readonly levels: readonly LocationLevel[];
}

/** What a location can still give to a hold: the units there no hold took. */
export function levelAvailable(level: LocationLevel): number {
  return level.onHand - level.reserved;
}

const EMPTY = { onHand: 0, reserved: 0, incoming: 0 };

/** A product's level at a location: all zero where it has none yet. */
export function levelAt(stock: ProductStock, locationId: number): LocationLevel {
  return stock.levels.find((level) => level.locationId === locationId) ?? { locationId, ...EMPTY };
}

/**
 * One change to one location's level: each is one movement of the ledger
 * (when it changes onHand or reserved), and the product's totals move with it.
 */
export interface LevelChange {
  readonly kind: MovementKind;
  readonly locationId: number;
  readonly onHand: number;
  readonly reserved: number;
  readonly incoming: number;
  readonly transferId?: string;
}

export function change(
  kind: MovementKind,
  locationId: number,
  delta: Partial<Pick<LevelChange, 'onHand' | 'reserved' | 'incoming'>>,
  transferId?: string,
): LevelChange {
  return {
    kind,
    locationId,
    onHand: delta.onHand ?? 0,
    reserved: delta.reserved ?? 0,
    incoming: delta.incoming ?? 0,
    ...(transferId !== undefined && { transferId }),
  };
}

/** Where a hold's units come from: `quantity` units at one location. */
export interface Allocation {
  readonly locationId: number;
  readonly quantity: number;
}

/** How a line that names no location is spread over them (RESERVATION_ALLOCATION). */
export type AllocationStrategy = 'priority' | 'most-available';
export const ALLOCATION_STRATEGIES: readonly AllocationStrategy[] = ['priority', 'most-available'];

/** What a line asks to hold of one product. */
export interface LineRequest {
  readonly quantity: number;
  /** Only from this location; absent: allocated across locations by the strategy. */
  readonly locationId?: number;
  /** Whether units beyond what is available may be held as backordered, within the product's backorderLimit. */
  readonly allowBackorder?: boolean;
}

/** What a line holds: units at locations, and units backordered (held before they exist). */
export interface HoldPlan {
  readonly allocations: readonly Allocation[];
  readonly backordered: number;
}

/** A line cannot be held: `available` is what it could have had (at its location, when it names one). */
export interface ShortHold {
  readonly status: 'short';
  readonly available: number;
}

/**
 * The locations a line may take from, in the order it takes: the one it
 * names, or every location by the strategy (priority: lower priority first;
 * most-available: most available first, then by priority).
 */
function fillOrder(
  stock: ProductStock,
  locations: readonly Location[],
  strategy: AllocationStrategy,
  locationId: number | undefined,
): LocationLevel[] {
  if (locationId !== undefined) return [levelAt(stock, locationId)];
  // One level has nothing to be ranked against, and its location exists (a level's foreign key): it is the order.
  if (stock.levels.length <= 1) return [...stock.levels];
  const rank = new Map(
    [...locations]
      .sort((a, b) => a.priority - b.priority || a.id - b.id)
      .map((location, index) => [location.id, index] as const),
  );
  const levels = stock.levels.filter((level) => rank.has(level.locationId));
  return levels.sort(
    (a, b) =>
      (strategy === 'most-available' ? levelAvailable(b) - levelAvailable(a) : 0) ||
      rank.get(a.locationId)! - rank.get(b.locationId)!,
  );
}

/**
 * Plans a line's hold: from the location it names, or across locations by
 * `strategy`, one line splitting over as many as it needs. What no location
 * has is backordered when the line allows it and the product's backorderLimit
 * has room; otherwise the line is short and nothing is held. A product whose
 * backorders wait has that much less available (they take the next stock).
 * `locations` ranks a product's levels when it has several; one level needs
 * none.
 */
export function planHold(
  stock: ProductStock,
  locations: readonly Location[],
  line: LineRequest,
  strategy: AllocationStrategy,
): HoldPlan | ShortHold {
  const order = fillOrder(stock, locations, strategy, line.locationId);
  const atLocations = order.reduce((sum, level) => sum + Math.max(0, levelAvailable(level)), 0);
  const available = Math.max(0, Math.min(atLocations, stock.product.availableQuantity));
  let wanted = Math.min(line.quantity, available);
  const allocations: Allocation[] = [];
  for (const level of order) {
    if (wanted === 0) break;
    const take = Math.min(wanted, Math.max(0, levelAvailable(level)));
    if (take > 0) allocations.push({ locationId: level.locationId, quantity: take });
    wanted -= take;
  }
  const backordered = line.quantity - Math.min(line.quantity, available);
  if (backordered === 0) return { allocations, backordered: 0 };
  const room = stock.product.backorderLimit - stock.product.backorderedQuantity;
  if (line.allowBackorder && backordered <= room) return { allocations, backordered };
  return { status: 'short', available };
}

/** The level changes that hold `plan`: each allocation reserved at its location. */
export function holdChanges(plan: HoldPlan): LevelChange[] {
  return plan.allocations.map(({ locationId, quantity }) => change('reserved', locationId, { reserved: quantity }));
}

export type Settlement = 'committed' | 'released' | 'expired';

/** A line's hold as its reservation recorded it: where its units are, and how many still wait as backordered. */
export interface LineHold {
  readonly allocations: readonly Allocation[];
  readonly backordered: number;
}

/** Committing a line whose backordered units have not arrived: it would sell units that do not exist yet. */
export interface BackorderNotFilled {
  readonly status: 'backorder-not-filled';
  readonly backordered: number;
}

/**
 * Plans the settlement of a line's hold: commit takes its units out of stock
 * at exactly the allocated locations (refused while any are backordered);
 * release and expiry give them back there, and drop what is backordered.
 */
export function planSettlement(
  hold: LineHold,
  settlement: Settlement,
): { readonly changes: LevelChange[]; readonly backordered: number } | BackorderNotFilled {
  if (settlement === 'committed' && hold.backordered > 0)
    return { status: 'backorder-not-filled', backordered: hold.backordered };
  const changes = hold.allocations.map(({ locationId, quantity }) =>
    settlement === 'committed'
      ? change('committed', locationId, { onHand: -quantity, reserved: -quantity })
      : change(settlement, locationId, { reserved: -quantity }),
  );
  return { changes, backordered: -hold.backordered };
}

export type LevelAdjustmentRefusal =
  /** The location's stock would go below what is held there; `available` is what could be taken out there. */
  | { readonly status: 'below-minimum'; readonly available: number }
  /** The product's stock would go above STOCK_MAX; `available` is its stock as it is. */
  | { readonly status: 'above-maximum'; readonly available: number };

/**
 * Plans adding `delta` at a location: never below what is held there, never
 * the product's total above STOCK_MAX.
 */
export function planAdjustment(
  stock: ProductStock,
  locationId: number,
  delta: number,
  kind: MovementKind = 'adjusted',
): LevelChange | LevelAdjustmentRefusal {
  const level = levelAt(stock, locationId);
  if (level.onHand + delta < level.reserved) return { status: 'below-minimum', available: levelAvailable(level) };
  const total = stock.product.quantityInStock;
  if (total + delta > STOCK_MAX) return { status: 'above-maximum', available: total };
  return change(kind, locationId, { onHand: delta });
}

/**
 * A PUT that changes quantityInStock sets the default location's stock to
 * it: refused once the product has stock, holds or incoming units at any other
 * location (adjust per location instead), or when the default location holds
 * more than the new stock.
 */
export type StockReplacementRefusal =
  | { readonly status: 'several-locations' }
  | { readonly status: 'below-reserved'; readonly quantityInStock: number; readonly reservedQuantity: number };

export function planStockReplacement(
  stock: ProductStock,
  quantityInStock: number,
): LevelChange | undefined | StockReplacementRefusal {
  const delta = quantityInStock - stock.product.quantityInStock;
  if (delta === 0) return undefined;
  const elsewhere = stock.levels.some(
    (level) =>
      level.locationId !== DEFAULT_LOCATION_ID && (level.onHand > 0 || level.reserved > 0 || level.incoming > 0),
  );
  if (elsewhere) return { status: 'several-locations' };
  const level = levelAt(stock, DEFAULT_LOCATION_ID);
  if (quantityInStock < level.reserved) {
    const { reservedQuantity } = stock.product;
    return { status: 'below-reserved', quantityInStock: stock.product.quantityInStock, reservedQuantity };
  }
  return change('updated', DEFAULT_LOCATION_ID, { onHand: delta });
}

/** A product is removed only when nothing of it is held, backordered or on its way between locations. */
export function productRemovalBlocked(stock: ProductStock): boolean {
  return (
    stock.product.reservedQuantity > 0 ||
    stock.product.backorderedQuantity > 0 ||
    stock.levels.some((level) => level.incoming > 0)
  );
}

/** A location is removed only when no product has stock, holds or incoming units there. */
export function locationIsEmpty(levels: readonly LocationLevel[]): boolean {
  return levels.every((level) => level.onHand === 0 && level.reserved === 0 && level.incoming === 0);
}

export type TransferStatus = 'in-transit' | 'received' | 'cancelled';

/** Units of one product on their way from one location to another. */
export interface StockTransfer {
  readonly id: string;
  readonly productId: number;
  readonly fromLocationId: number;
  readonly toLocationId: number;
  readonly quantity: number;
  /** The caller's own name for it: unique, so a repeated request answers the first transfer. */
  readonly reference: string;
  readonly status: TransferStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * Plans sending a transfer: its units leave `from`'s on hand (and so its
 * available) at once, and show as incoming at `to`. Refused when `from` has
 * fewer available.
 */
export function planTransferOut(stock: ProductStock, transfer: StockTransfer): LevelChange[] | ShortHold {
  const from = levelAt(stock, transfer.fromLocationId);
  if (transfer.quantity > levelAvailable(from)) return { status: 'short', available: levelAvailable(from) };
  return [
    change('transfer-sent', transfer.fromLocationId, { onHand: -transfer.quantity }, transfer.id),
    change('transfer-sent', transfer.toLocationId, { incoming: transfer.quantity }, transfer.id),
  ];
}

/**
 * Receiving adds the units to `to`'s on hand (one change: incoming becomes on
 * hand); cancelling returns them to `from`'s. Either way `to` expects them no
 * more, and exactly one change moves stock: the step's one ledger movement.
 */
export function planTransferEnd(transfer: StockTransfer, to: 'received' | 'cancelled'): LevelChange[] {
  const { id, quantity, fromLocationId, toLocationId } = transfer;
  if (to === 'received')
    return [change('transfer-received', toLocationId, { onHand: quantity, incoming: -quantity }, id)];
  return [
    change('transfer-cancelled', toLocationId, { incoming: -quantity }, id),
    change('transfer-cancelled', fromLocationId, { onHand: quantity }, id),
  ];
}

/** What a transition asked of a transfer does: go ahead (in transit), nothing (already there), or refuse. */
export function transferTransition(
  status: TransferStatus,
  to: 'received' | 'cancelled',
): 'apply' | 'unchanged' | 'refuse' {
  if (status === 'in-transit') return 'apply';
  return status === to ? 'unchanged' : 'refuse';
}

/** Units a backordered hold still waits for, in the order they were held (oldest first). */
export interface Backorder {
  readonly reservationId: string;
  readonly quantity: number;
}

/** Backordered units of one reservation filled at one location. */
export interface Fill {
  readonly reservationId: string;
  readonly locationId: number;
  readonly quantity: number;
}

/**
 * Stock that arrives at a location fills backordered holds, oldest first, as
 * far as what is available there now goes: each fill reserves the units at
 * that location for the hold that waited.
 */
export function planFills(level: LocationLevel, backorders: readonly Backorder[]): Fill[] {
  let available = levelAvailable(level);
  const fills: Fill[] = [];
  for (const { reservationId, quantity } of backorders) {
    if (available <= 0) break;
    const take = Math.min(quantity, available);
    fills.push({ reservationId, locationId: level.locationId, quantity: take });
    available -= take;
  }
  return fills;
}

export function fillChange(fill: Fill): LevelChange {
  return change('backorder-filled', fill.locationId, { reserved: fill.quantity });
}

/** A level with `changes` applied: what a plan made after them reads. */
export function applied(stock: ProductStock, changes: readonly LevelChange[]): LocationLevel[] {
  const levels = new Map(stock.levels.map((level) => [level.locationId, level]));
  for (const { locationId, onHand, reserved, incoming } of changes) {
    const level = levels.get(locationId) ?? { locationId, ...EMPTY };
    levels.set(locationId, {
      locationId,
      onHand: level.onHand + onHand,
      reserved: level.reserved + reserved,
      incoming: level.incoming + incoming,
    });
  }
  return [...levels.values()].sort((a, b) => a.locationId - b.locationId);
}

/** An event a stock movement causes: the product fell below its threshold, or came back above it. */
export type LowStockEvent = 'stock.level.low' | 'stock.level.restored';

/**
 * Whether a change that took the product's available quantity to `after`
 * crosses its low-stock threshold: an alerted product is restored at
 * threshold + hysteresis or more, one not alerted turns low below the
 * threshold. The alert flag moves in the same statement as the stock, so each
 * crossing is seen by exactly one change. A threshold of 0 alerts nothing
 * (and a product alerted before it was turned off is quietly cleared).
 */
export function lowStockCrossing(
  product: Pick<Product, 'lowStockThreshold' | 'stock'>,
  after: number,
  hysteresis: number,
): { readonly alert: boolean; readonly event?: LowStockEvent } {
  const { lowStockThreshold: threshold } = product;
  const alerted = product.stock.lowStockAlert;
  if (threshold === 0) return { alert: false };
  if (!alerted && after < threshold) return { alert: true, event: 'stock.level.low' };
  if (alerted && after >= threshold + hysteresis) return { alert: false, event: 'stock.level.restored' };
  return { alert: alerted };
}

export const TRANSFER_REFERENCE_MAX_LENGTH = 200;

export interface TransferRequestInput {
  readonly productId: number;
  readonly fromLocationId: number;
  readonly toLocationId: number;
  readonly quantity: number;
  readonly reference: string;
}

const transferReference = text(TRANSFER_REFERENCE_MAX_LENGTH);

/** What a caller asks to move; only `create` makes one, so every instance is valid. */
export class TransferRequest {
  private constructor(
    readonly productId: number,
    readonly fromLocationId: number,
    readonly toLocationId: number,
    readonly quantity: number,
    readonly reference: string,
  ) {}

  /** Answers the request, or throws one ValidationError naming every broken field. */
  static create(input: TransferRequestInput): TransferRequest {
    const locationId = (value: number) =>
      isLocationId(value) ? value : new Invalid(`must be an integer from 1 to ${INT32_MAX}`);
    const fields = allValid({
      productId: isProductId(input.productId)
        ? input.productId
        : new Invalid(`must be an integer from 1 to ${INT32_MAX}`),
      fromLocationId: locationId(input.fromLocationId),
      toLocationId:
        input.toLocationId === input.fromLocationId
          ? new Invalid('must differ from fromLocationId')
          : locationId(input.toLocationId),
      quantity:
        Number.isInteger(input.quantity) && input.quantity >= 1 && input.quantity <= INT32_MAX
          ? input.quantity
          : new Invalid(`must be an integer from 1 to ${INT32_MAX}`),
      reference: (() => {
        const trimmed = input.reference.trim();
        return trimmed.length === 0 ? new Invalid('is required and must not be blank') : transferReference(trimmed);
      })(),
    });
    return new TransferRequest(
      fields.productId,
      fields.fromLocationId,
      fields.toLocationId,
      fields.quantity,
      fields.reference,
    );
  }
}
