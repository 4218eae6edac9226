import { evaluate } from './condition';
import type { MovementKind, ReasonCode } from './movement';
import { LEVEL_AVAILABLE } from './rules';

/**
 * A product's stock at one location, in its named states. Of the units on
 * hand, some are set aside: held by unpaid holds (reserved), held for paid
 * orders until they ship (committed), waiting for inspection (qualityControl)
 * or unsellable (damaged); the rest are available (LEVEL_AVAILABLE).
 */
export interface LocationLevel {
  readonly locationId: number;
  /** Units physically there, in any state. */
  readonly onHand: number;
  /** Of those, the units unpaid holds took (they expire). */
  readonly reserved: number;
  /** Of those, the units paid orders hold until they ship (they never expire). */
  readonly committed: number;
  /** Of those, the units waiting for a decision (a returned unit's inspection): not sellable until then. */
  readonly qualityControl: number;
  /** Of those, the units that cannot be sold: kept until written off. */
  readonly damaged: number;
  /** Units on their way there by transfer, not yet received (not on hand). */
  readonly incoming: number;
}

/** A level's quantities without its location: what a change adds to, and what the invariant reads. */
export type LevelQuantities = Omit<LocationLevel, 'locationId'>;

/** What a location can still give to a hold or a sale: its units on hand in no other state (LEVEL_AVAILABLE). */
export function levelAvailable(level: LevelQuantities): number {
  return evaluate(LEVEL_AVAILABLE, level);
}

/**
 * The level's own invariant, the one the databases also declare as checks
 * (every state ≥ 0, the set-aside states together within on hand): the
 * aggregate never answers a change that breaks it, and every store refuses to
 * keep one that does.
 */
export function levelIsValid(level: LevelQuantities): boolean {
  const { reserved, committed, qualityControl, damaged, incoming } = level;
  return (
    reserved >= 0 &&
    committed >= 0 &&
    qualityControl >= 0 &&
    damaged >= 0 &&
    incoming >= 0 &&
    levelAvailable(level) >= 0
  );
}

/** The states a merchant sorts units on hand into, by hand (a state change, an adjustment) or by a return. */
export type UnitState = 'available' | 'quality-control' | 'damaged';
export const UNIT_STATES: readonly UnitState[] = ['available', 'quality-control', 'damaged'];

/** The level's quantity each set-aside state is kept in. */
export const STATE_QUANTITY = {
  'quality-control': 'qualityControl',
  damaged: 'damaged',
} as const satisfies Record<Exclude<UnitState, 'available'>, keyof LevelQuantities>;

/** How many units of a level are in `state`. */
export function unitsIn(level: LevelQuantities, state: UnitState): number {
  return state === 'available' ? levelAvailable(level) : level[STATE_QUANTITY[state]];
}

/** What a returned unit becomes: sellable again, set aside for inspection, damaged, or never came back. */
export type ReturnDisposition = 'restock' | 'quality-control' | 'damaged' | 'missing';
export const RETURN_DISPOSITIONS: readonly ReturnDisposition[] = ['restock', 'quality-control', 'damaged', 'missing'];

/** The deltas of a change to one level, one per quantity (incoming too, though it moves no unit on hand). */
export type LevelDelta = LevelQuantities;

/**
 * A change to one location's level: each that moves a state of the units on
 * hand is one movement of the ledger (and a return always is).
 */
export interface LevelChange extends LevelDelta {
  readonly kind: MovementKind;
  readonly locationId: number;
  readonly transferId?: string;
  /** Why, when the verb was told (an adjustment, a state change); otherwise the movement's kind says it. */
  readonly reasonCode?: ReasonCode;
}

const NO_DELTA: LevelDelta = { onHand: 0, reserved: 0, committed: 0, qualityControl: 0, damaged: 0, incoming: 0 };

export function change(
  kind: MovementKind,
  locationId: number,
  delta: Partial<LevelDelta>,
  more: { readonly transferId?: string; readonly reasonCode?: ReasonCode } = {},
): LevelChange {
  return { kind, locationId, ...NO_DELTA, ...delta, ...more };
}

/** The level change of `delta` units moving into (+) or out of (−) `state`, which they are on hand in. */
export function intoState(state: UnitState, delta: number): Partial<LevelDelta> {
  if (state === 'available') return {};
  return state === 'quality-control' ? { qualityControl: delta } : { damaged: delta };
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
  /** The location the line named: its backordered units wait for stock there, and only there. */
  readonly locationId?: number;
}

/** A line's hold as its reservation recorded it: where its units are, and how many still wait as backordered. */
export type LineHold = HoldPlan;

export type Settlement = 'committed' | 'released' | 'expired';

/**
 * What committing a hold does to its units. An order's hold is paid and waits to ship: its units move from reserved
 * to committed, on hand unchanged, until a shipment takes them (`to-ship`). An API caller's hold has no order to
 * ship: its units leave the stock at once, on hand and reserved down together (`at-once`, commit's first meaning).
 */
export type Commitment = 'to-ship' | 'at-once';

/** Units a backordered hold still waits for, in the order they were held (oldest first). */
export interface Backorder {
  readonly reservationId: string;
  readonly quantity: number;
  /** The location its line named, when it named one: only stock there fills it. */
  readonly locationId?: number;
}

/** Backordered units of one reservation filled at one location. */
export interface Fill {
  readonly reservationId: string;
  readonly locationId: number;
  readonly quantity: number;
}

/** A hold or a transfer cannot be made: `available` is what it could have had (where it asked). */
export interface ShortHold {
  readonly status: 'short';
  readonly available: number;
}

/** Committing a line whose backordered units have not arrived: it would sell units that do not exist yet. */
export interface BackorderNotFilled {
  readonly status: 'backorder-not-filled';
  readonly backordered: number;
}

export type LevelAdjustmentRefusal =
  /**
   * The location's stock would go below what is held there, or the state adjusted below 0; `available` is what
   * could be taken out of that state there.
   */
  | { readonly status: 'below-minimum'; readonly available: number }
  /** The product's stock would go above STOCK_MAX; `available` is its stock as it is. */
  | { readonly status: 'above-maximum'; readonly available: number };

/**
 * A PUT that changes quantityInStock sets the default location's stock to it:
 * refused once the product has stock, holds or incoming units at any other
 * location (adjust per location instead), or when the default location holds
 * more than the new stock.
 */
export type StockReplacementRefusal =
  | { readonly status: 'several-locations' }
  | { readonly status: 'below-reserved'; readonly quantityInStock: number; readonly reservedQuantity: number };

/** A shipment asks more of a location than paid orders committed there: `committed` is what they did. */
export interface ShipmentRefusal {
  readonly status: 'exceeds-committed';
  readonly committed: number;
}

/** Units coming back would take the product's stock above STOCK_MAX; `available` is its stock as it is. */
export interface ReturnRefusal {
  readonly status: 'above-maximum';
  readonly available: number;
}

/** A state change asks more units than `from` holds at the location: `holds` is how many it does. */
export interface StateChangeRefusal {
  readonly status: 'state-short';
  readonly from: UnitState;
  readonly holds: number;
}

/** A product that holds, backorders or has units on their way cannot be removed: they would be lost. */
export interface RemovalRefusal {
  readonly status: 'in-use';
  /** What its holds take: reserved and backordered units. */
  readonly held: number;
}

/** Whether a verb's answer is a refusal (every refusal says its `status`; a change has none). */
export function isRefusal<T extends object>(answer: T): answer is Extract<T, { readonly status: string }> {
  return 'status' in answer;
}
