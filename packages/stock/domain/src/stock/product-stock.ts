import { DEFAULT_LOCATION_ID, type Location } from '../locations/location';
import { Product, type ProductDetails } from '../products/product';
import type { StockTransfer } from '../transfers/transfer';
import { evaluate, holds } from './condition';
import {
  type Allocation,
  type AllocationStrategy,
  type Backorder,
  type BackorderNotFilled,
  change,
  type Commitment,
  type Fill,
  type HoldPlan,
  type LevelAdjustmentRefusal,
  type LevelChange,
  type LevelQuantities,
  levelAvailable,
  levelIsValid,
  intoState,
  type LineHold,
  type LineRequest,
  type LocationLevel,
  type RemovalRefusal,
  type ReturnDisposition,
  type ReturnRefusal,
  type Settlement,
  type ShipmentRefusal,
  type ShortHold,
  type StateChangeRefusal,
  type StockReplacementRefusal,
  type UnitState,
  unitsIn,
} from './levels';
import { type AdjustmentReasonCode, type Movement, reasonCodeOf } from './movement';
import {
  ARRIVAL_FILLS,
  AVAILABLE,
  COVERS_HOLDS,
  KEEPS_HOLDS,
  LEVEL_IS_EMPTY,
  type LowStockEvent,
  lowStockCrossing,
  MOVES_STOCK,
  STOCK_MAX,
  WITHIN_STOCK_MAX,
} from './rules';

/** How stock changes behave beside the rules: a deployment's settings. */
export interface StockPolicy {
  /** LOW_STOCK_HYSTERESIS: how far above its threshold a low product must come back to be restored. */
  readonly lowStockHysteresis: number;
}

export const DEFAULT_STOCK_POLICY: StockPolicy = { lowStockHysteresis: 1 };

/** A product crossed its low-stock threshold: the event to publish, with what it says. */
export interface LowStockSignal {
  readonly event: LowStockEvent;
  readonly available: number;
  readonly threshold: number;
}

/** One decision of the aggregate: its movements, and the crossing it caused. The product moves one version with it. */
export interface StockStep {
  readonly movements: readonly Movement[];
  readonly signal?: LowStockSignal;
}

/**
 * What a verb of ProductStock decided: the stock before and after, every
 * movement of the ledger in between (numbered, with the totals and the level
 * after each), the low-stock crossings, and the backordered holds it filled.
 * A store saves it as it is; nothing in it is decided again.
 */
export class StockChange {
  constructor(
    readonly before: ProductStock,
    readonly after: ProductStock,
    readonly steps: readonly StockStep[],
    /** Backordered units this change reserved for their holds: the reservations record them. */
    readonly fills: readonly Fill[] = [],
  ) {}

  /** Nothing changed: `stock` stays as it is. */
  static none(stock: ProductStock): StockChange {
    return new StockChange(stock, stock, []);
  }

  get productId(): number {
    return this.before.product.id;
  }

  get movements(): Movement[] {
    return this.steps.flatMap((step) => step.movements);
  }

  /** This change, then `next` (which must start where this one ends). */
  followedBy(next: StockChange): StockChange {
    if (next.before !== this.after) throw new Error('A change can only follow the change whose stock it started from.');
    return new StockChange(this.before, next.after, [...this.steps, ...next.steps], [...this.fills, ...next.fills]);
  }
}

/** A hold was made: the change that holds it, and where its units are. */
export interface HeldStock {
  readonly change: StockChange;
  readonly plan: HoldPlan;
}

const EMPTY_LEVEL: LevelQuantities = {
  onHand: 0,
  reserved: 0,
  committed: 0,
  qualityControl: 0,
  damaged: 0,
  incoming: 0,
};

/** How an adjustment is made, beside its location and delta. */
export interface AdjustmentOptions {
  /** The state the units enter (delta > 0) or leave (delta < 0) with on hand: available when not told. */
  readonly state?: UnitState;
  /** Why (DEFAULT_REASON_CODE when not told). */
  readonly reasonCode?: AdjustmentReasonCode;
  /** `imported` when an import set the level; otherwise `adjusted`. */
  readonly kind?: 'adjusted' | 'imported';
}

/** The deltas of a level's quantities, as a movement names them. */
const deltasOf = (change: LevelChange) => ({
  quantityDelta: change.onHand,
  reservedDelta: change.reserved,
  committedDelta: change.committed,
  qualityControlDelta: change.qualityControl,
  damagedDelta: change.damaged,
});

const byLocation = (a: LocationLevel, b: LocationLevel) => a.locationId - b.locationId;

/**
 * A product's stock: its totals, its level at each location it has one, and
 * the sequence of its ledger. Every stock rule is a method here (a verb) that
 * answers the change it makes, with every movement of it, or the refusal and
 * why; the use cases save what it answers. A store hands it out locked
 * (ProductStockRepository.lock), so the decision holds until the transaction
 * ends. Immutable: a change answers the stock after it.
 */
export class ProductStock {
  private constructor(
    readonly product: Product,
    /** In location id order. */
    readonly levels: readonly LocationLevel[],
    /** The sequence of the product's last movement (0 before its first). */
    readonly sequence: number,
  ) {}

  static of(product: Product, levels: readonly LocationLevel[], sequence: number): ProductStock {
    if (!Number.isSafeInteger(sequence) || sequence < 0) throw new RangeError(`Not a ledger sequence: ${sequence}`);
    // The stores read levels in location order already: sorted again only when they are not.
    const inOrder = levels.every((level, index) => index === 0 || levels[index - 1]!.locationId < level.locationId);
    return new ProductStock(product, inOrder ? levels : [...levels].sort(byLocation), sequence);
  }

  /** The first movement of a new product's ledger: its stock arriving at the default location. */
  static opening(details: Pick<ProductDetails, 'quantityInStock'>): Movement {
    const quantity = details.quantityInStock;
    return {
      kind: 'created',
      locationId: DEFAULT_LOCATION_ID,
      quantityDelta: quantity,
      reservedDelta: 0,
      committedDelta: 0,
      qualityControlDelta: 0,
      damagedDelta: 0,
      quantityAfter: quantity,
      reservedAfter: 0,
      reasonCode: 'created',
      onHand: quantity,
      reserved: 0,
      committed: 0,
      qualityControl: 0,
      damaged: 0,
      sequence: 1,
    };
  }

  /** The stock of a product just added (ProductRepository.add): all at the default location, its opening movement. */
  static ofNew(product: Product): ProductStock {
    const opening = ProductStock.opening(product);
    const level = { locationId: opening.locationId, ...EMPTY_LEVEL, onHand: opening.onHand };
    return new ProductStock(product, [level], opening.sequence);
  }

  /** The same stock with the product as its details were just changed (a PUT's, an import's): its next version. */
  withProduct(product: Product): ProductStock {
    if (product.id !== this.product.id) throw new Error(`Product ${product.id} is not product ${this.product.id}.`);
    return new ProductStock(product, this.levels, this.sequence);
  }

  /** Its level at a location: all zero where it has none yet. */
  levelAt(locationId: number): LocationLevel {
    return this.levels.find((level) => level.locationId === locationId) ?? { locationId, ...EMPTY_LEVEL };
  }

  /** Whether stock arriving (`delta` > 0) fills backordered holds first (ARRIVAL_FILLS): then `fill` it. */
  fillsOnArrival(delta: number): boolean {
    return holds(ARRIVAL_FILLS, { delta, backorderedQuantity: this.product.backorderedQuantity });
  }

  /**
   * Holds a line: at the location it names, or across locations by `strategy`
   * (priority: lower priority first; most-available: most available first,
   * then by priority), one line splitting over as many as it needs. What no
   * location has is backordered when the line allows it and the product's
   * backorderLimit has room; otherwise the line is short and nothing is held.
   * Backorders already waiting take that much of what is available (they take
   * the next stock). `locations` ranks the levels when there are several.
   */
  hold(
    line: LineRequest,
    locations: readonly Location[],
    strategy: AllocationStrategy,
    policy: StockPolicy,
  ): HeldStock | ShortHold {
    const order = this.fillOrder(locations, strategy, line.locationId);
    const atLocations = order.reduce((sum, level) => sum + Math.max(0, levelAvailable(level)), 0);
    const available = Math.max(0, Math.min(atLocations, this.product.availableQuantity));
    let wanted = Math.min(line.quantity, available);
    const allocations: Allocation[] = [];
    for (const level of order) {
      if (wanted === 0) break;
      const take = Math.min(wanted, Math.max(0, levelAvailable(level)));
      if (take > 0) allocations.push({ locationId: level.locationId, quantity: take });
      wanted -= take;
    }
    const backordered = line.quantity - Math.min(line.quantity, available);
    const room = this.product.backorderLimit - this.product.backorderedQuantity;
    if (backordered > 0 && !(line.allowBackorder && backordered <= room)) return { status: 'short', available };
    const changes = allocations.map(({ locationId, quantity }) =>
      change('reserved', locationId, { reserved: quantity }),
    );
    const plan = { allocations, backordered, ...(line.locationId !== undefined && { locationId: line.locationId }) };
    return { change: this.step(changes, backordered, policy), plan };
  }

  /**
   * Adds `delta` at a location, in a state (available when not told): on hand
   * and that state move together, so writing off damaged units takes them out
   * of on hand and of damaged. Available units never go below what is set
   * aside there (KEEPS_HOLDS), a set-aside state never below 0, and the
   * product's total never above STOCK_MAX (WITHIN_STOCK_MAX). Available stock
   * that arrives fills backorders only through `fill`, which needs them read.
   */
  adjust(
    locationId: number,
    delta: number,
    policy: StockPolicy,
    { state = 'available', reasonCode, kind = 'adjusted' }: AdjustmentOptions = {},
  ): StockChange | LevelAdjustmentRefusal {
    const level = this.levelAt(locationId);
    const keeps = state === 'available' ? holds(KEEPS_HOLDS, { ...level, delta }) : unitsIn(level, state) + delta >= 0;
    if (!keeps) return { status: 'below-minimum', available: unitsIn(level, state) };
    if (!holds(WITHIN_STOCK_MAX, { quantityInStock: this.product.quantityInStock, delta }))
      return { status: 'above-maximum', available: this.product.quantityInStock };
    const adjusted = change(kind, locationId, { onHand: delta, ...intoState(state, delta) }, { reasonCode });
    return this.step([adjusted], 0, policy);
  }

  /**
   * Moves `quantity` units on hand at a location from one state to another
   * (available, quality-control, damaged): one `state-changed` movement, on
   * hand unchanged. Refused when `from` holds fewer there (for available:
   * fewer available).
   */
  changeState(
    locationId: number,
    quantity: number,
    states: { readonly from: UnitState; readonly to: UnitState },
    policy: StockPolicy,
    reasonCode?: AdjustmentReasonCode,
  ): StockChange | StateChangeRefusal {
    const { from, to } = states;
    if (from === to || !(quantity > 0)) throw new RangeError(`Not a state change: ${quantity} from ${from} to ${to}.`);
    const holding = unitsIn(this.levelAt(locationId), from);
    if (holding < quantity) return { status: 'state-short', from, holds: holding };
    const moved = { ...intoState(from, -quantity), ...intoState(to, quantity) };
    return this.step([change('state-changed', locationId, moved, { reasonCode })], 0, policy);
  }

  /**
   * Ships `quantity` committed units from a location: on hand and committed
   * down together, nothing else. Refused when paid orders committed fewer
   * there; which order's units they are is the shipment's to check.
   */
  ship(locationId: number, quantity: number, policy: StockPolicy): StockChange | ShipmentRefusal {
    const { committed } = this.levelAt(locationId);
    if (committed < quantity) return { status: 'exceeds-committed', committed };
    return this.step([change('shipped', locationId, { onHand: -quantity, committed: -quantity })], 0, policy);
  }

  /**
   * Receives `quantity` returned units at a location as `disposition` says:
   * restock adds them to on hand, available (and, like any arrival, they fill
   * backorders through `fill`); quality-control and damaged add them to on
   * hand in that state; missing moves nothing, but the ledger records the
   * units that never came back. Never the product's total above STOCK_MAX.
   */
  receiveReturn(
    locationId: number,
    quantity: number,
    disposition: ReturnDisposition,
    policy: StockPolicy,
  ): StockChange | ReturnRefusal {
    if (disposition === 'missing') return this.step([change('returned', locationId, {})], 0, policy);
    if (!holds(WITHIN_STOCK_MAX, { quantityInStock: this.product.quantityInStock, delta: quantity }))
      return { status: 'above-maximum', available: this.product.quantityInStock };
    const state = disposition === 'restock' ? 'available' : disposition;
    return this.step([change('returned', locationId, { onHand: quantity, ...intoState(state, quantity) })], 0, policy);
  }

  /**
   * A PUT's new quantityInStock, set at the default location: refused while
   * any other location has stock, holds or incoming units (adjust per
   * location instead), or when it would not cover what is held at the default
   * location. Undefined when the stock is already that.
   */
  replace(quantityInStock: number, policy: StockPolicy): StockChange | StockReplacementRefusal | undefined {
    const delta = quantityInStock - this.product.quantityInStock;
    if (delta === 0) return undefined;
    if (this.levels.some((level) => level.locationId !== DEFAULT_LOCATION_ID && !holds(LEVEL_IS_EMPTY, level)))
      return { status: 'several-locations' };
    if (!holds(COVERS_HOLDS, { ...this.levelAt(DEFAULT_LOCATION_ID), quantity: quantityInStock }))
      return {
        status: 'below-reserved',
        quantityInStock: this.product.quantityInStock,
        reservedQuantity: this.product.reservedQuantity,
      };
    return this.step([change('updated', DEFAULT_LOCATION_ID, { onHand: delta })], 0, policy);
  }

  /**
   * Ends a line's hold at exactly the allocated locations. Commit (refused
   * while any units are backordered) does as `commitment` says: an order's
   * units move from reserved to committed, on hand unchanged, and wait there
   * to ship; an API hold's leave the stock at once. Release and expiry give
   * the units back there, and drop what is backordered.
   */
  settle(
    hold: LineHold,
    settlement: Settlement,
    policy: StockPolicy,
    commitment: Commitment = 'to-ship',
  ): StockChange | BackorderNotFilled {
    if (settlement === 'committed' && hold.backordered > 0)
      return { status: 'backorder-not-filled', backordered: hold.backordered };
    const changes = hold.allocations.map(({ locationId, quantity }) => {
      if (settlement !== 'committed') return change(settlement, locationId, { reserved: -quantity });
      return commitment === 'to-ship'
        ? change('committed', locationId, { reserved: -quantity, committed: quantity })
        : change('committed', locationId, { onHand: -quantity, reserved: -quantity });
    });
    return this.step(changes, -hold.backordered, policy);
  }

  /**
   * Gives back units committed to an order that will not ship them (it was
   * cancelled): `released` movements, committed down at exactly those
   * locations, the units available again there. The caller names only units
   * the order committed and has not shipped.
   */
  releaseCommitted(allocations: readonly Allocation[], policy: StockPolicy): StockChange {
    const changes = allocations.map(({ locationId, quantity }) =>
      change('released', locationId, { committed: -quantity }),
    );
    return this.step(changes, 0, policy);
  }

  /**
   * Sends a transfer: its units leave `from`'s on hand (and so its
   * available) at once, and show as incoming at `to`. Refused when `from` has
   * fewer available.
   */
  sendTransfer(transfer: StockTransfer, policy: StockPolicy): StockChange | ShortHold {
    const from = this.levelAt(transfer.fromLocationId);
    if (transfer.quantity > levelAvailable(from)) return { status: 'short', available: levelAvailable(from) };
    const { id, quantity, fromLocationId, toLocationId } = transfer;
    const changes = [
      change('transfer-sent', fromLocationId, { onHand: -quantity }, { transferId: id }),
      change('transfer-sent', toLocationId, { incoming: quantity }, { transferId: id }),
    ];
    return this.step(changes, 0, policy);
  }

  /**
   * Receiving adds the units to `to`'s on hand (incoming becomes on hand);
   * cancelling returns them to `from`'s. Either way `to` expects them no more,
   * and exactly one level moves stock: the step's one ledger movement.
   */
  endTransfer(transfer: StockTransfer, to: 'received' | 'cancelled', policy: StockPolicy): StockChange {
    const { id, quantity, fromLocationId, toLocationId } = transfer;
    const changes =
      to === 'received'
        ? [change('transfer-received', toLocationId, { onHand: quantity, incoming: -quantity }, { transferId: id })]
        : [
            change('transfer-cancelled', toLocationId, { incoming: -quantity }, { transferId: id }),
            change('transfer-cancelled', fromLocationId, { onHand: quantity }, { transferId: id }),
          ];
    return this.step(changes, 0, policy);
  }

  /**
   * Stock at `locationId` fills backordered holds, oldest first, as far as
   * what is available there goes: each fill reserves the units there for the
   * hold that waited, one step and one movement each. A hold whose line named
   * another location waits for stock there.
   */
  fill(locationId: number, backorders: readonly Backorder[], policy: StockPolicy): StockChange {
    let filled = StockChange.none(this);
    for (const { reservationId, quantity, locationId: named } of backorders) {
      // A line that named a location holds only from there: stock elsewhere is not for it.
      if (named !== undefined && named !== locationId) continue;
      const available = levelAvailable(filled.after.levelAt(locationId));
      if (available <= 0) break;
      const take = Math.min(quantity, available);
      const reserve = change('backorder-filled', locationId, { reserved: take });
      const step = filled.after.step([reserve], -take, policy, reservationId);
      filled = filled.followedBy(
        new StockChange(step.before, step.after, step.steps, [{ reservationId, locationId, quantity: take }]),
      );
    }
    return filled;
  }

  /**
   * A product is removed only when nothing of it is held (by a hold or a paid order), backordered or on its way
   * between locations.
   */
  removal(): RemovalRefusal | undefined {
    const { reservedQuantity, committedQuantity, backorderedQuantity } = this.product;
    const held = reservedQuantity + committedQuantity + backorderedQuantity;
    if (held > 0 || this.levels.some((level) => level.incoming > 0)) return { status: 'in-use', held };
    return undefined;
  }

  /** The locations a line takes from, in the order it takes: the one it names, or every level by the strategy. */
  private fillOrder(
    locations: readonly Location[],
    strategy: AllocationStrategy,
    locationId: number | undefined,
  ): LocationLevel[] {
    if (locationId !== undefined) return [this.levelAt(locationId)];
    // One level has nothing to be ranked against, and its location exists (a level's foreign key): it is the order.
    if (this.levels.length <= 1) return [...this.levels];
    const rank = new Map(
      [...locations]
        .sort((a, b) => a.priority - b.priority || a.id - b.id)
        .map((location, index) => [location.id, index] as const),
    );
    const levels = this.levels.filter((level) => rank.has(level.locationId));
    return levels.sort(
      (a, b) =>
        (strategy === 'most-available' ? levelAvailable(b) - levelAvailable(a) : 0) ||
        rank.get(a.locationId)! - rank.get(b.locationId)!,
    );
  }

  /**
   * One decision: `changes` applied to the levels in order (each that moves
   * on hand or a state of it one numbered movement, and every return, even
   * of units that never came back), `backordered` added to the product's
   * backorders, the low-stock crossing it causes, and the product at its next
   * version. A verb checks its rules before; a change that would still break
   * a level's invariant or the product's bounds is a bug, thrown.
   */
  private step(
    changes: readonly LevelChange[],
    backordered: number,
    policy: StockPolicy,
    reservationId?: string,
  ): StockChange {
    const { product } = this;
    const levels = new Map(this.levels.map((level) => [level.locationId, level]));
    const totals = {
      quantityInStock: product.quantityInStock,
      reservedQuantity: product.reservedQuantity,
      committedQuantity: product.committedQuantity,
      qualityControlQuantity: product.qualityControlQuantity,
      damagedQuantity: product.damagedQuantity,
    };
    let sequence = this.sequence;
    const movements: Movement[] = [];
    for (const change of changes) {
      const { kind, locationId } = change;
      const level = levels.get(locationId) ?? { locationId, ...EMPTY_LEVEL };
      const next: LocationLevel = {
        locationId,
        onHand: level.onHand + change.onHand,
        reserved: level.reserved + change.reserved,
        committed: level.committed + change.committed,
        qualityControl: level.qualityControl + change.qualityControl,
        damaged: level.damaged + change.damaged,
        incoming: level.incoming + change.incoming,
      };
      totals.quantityInStock += change.onHand;
      totals.reservedQuantity += change.reserved;
      totals.committedQuantity += change.committed;
      totals.qualityControlQuantity += change.qualityControl;
      totals.damagedQuantity += change.damaged;
      if (!levelIsValid(next) || totals.quantityInStock > STOCK_MAX)
        throw new Error(`Product ${product.id}: ${kind} at location ${locationId} breaks the level's bounds.`);
      levels.set(locationId, next);
      const deltas = deltasOf(change);
      // A return is recorded even when nothing came back (missing): the ledger says the order's units are settled.
      if (!holds(MOVES_STOCK, deltas) && kind !== 'returned') continue;
      const { onHand, reserved, committed, qualityControl, damaged } = next;
      const movement: Movement = {
        kind,
        locationId,
        ...deltas,
        quantityAfter: totals.quantityInStock,
        reservedAfter: totals.reservedQuantity,
        reasonCode: reasonCodeOf(kind, change.reasonCode),
        onHand,
        reserved,
        committed,
        qualityControl,
        damaged,
        sequence: ++sequence,
      };
      movements.push(
        change.transferId === undefined && reservationId === undefined
          ? movement
          : {
              ...movement,
              ...(change.transferId !== undefined && { transferId: change.transferId }),
              ...(reservationId !== undefined && { reservationId }),
            },
      );
    }
    const backorderedQuantity = product.backorderedQuantity + backordered;
    const available = evaluate(AVAILABLE, { ...totals, backorderedQuantity });
    const crossing = lowStockCrossing({
      available,
      lowStockThreshold: product.lowStockThreshold,
      lowStockAlert: product.stock.lowStockAlert,
      hysteresis: policy.lowStockHysteresis,
    });
    const { quantityInStock, reservedQuantity, committedQuantity, qualityControlQuantity, damagedQuantity } = totals;
    const details =
      quantityInStock === product.quantityInStock
        ? product.details
        : product.details.withQuantityInStock(quantityInStock);
    const after = Product.of(product.id, details, product.version + 1, reservedQuantity, {
      committedQuantity,
      qualityControlQuantity,
      damagedQuantity,
      backorderedQuantity,
      lowStockAlert: crossing.alert,
    });
    const signal = crossing.event && {
      event: crossing.event,
      available: after.availableQuantity,
      threshold: product.lowStockThreshold,
    };
    // A level this step created came last: only then are the levels out of location order.
    const sorted = levels.size === this.levels.length ? [...levels.values()] : [...levels.values()].sort(byLocation);
    const next = new ProductStock(after, sorted, sequence);
    return new StockChange(this, next, [{ movements, ...(signal && { signal }) }]);
  }
}

/** A location can be removed when every product's level there is empty (LEVEL_IS_EMPTY). */
export function locationIsEmpty(levels: readonly LocationLevel[]): boolean {
  return levels.every((level) => holds(LEVEL_IS_EMPTY, level));
}
