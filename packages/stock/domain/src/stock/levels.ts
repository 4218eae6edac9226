import type { MovementKind } from './movement';

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

/** What a location can still give to a hold: the units there no hold took. */
export function levelAvailable(level: LocationLevel): number {
  return level.onHand - level.reserved;
}

/**
 * The level's own invariant, the one the databases also declare as checks
 * (0 ≤ reserved ≤ on hand, incoming ≥ 0): the aggregate never answers a change
 * that breaks it, and every store refuses to keep one that does.
 */
export function levelIsValid(level: Omit<LocationLevel, 'locationId'>): boolean {
  return level.reserved >= 0 && level.reserved <= level.onHand && level.incoming >= 0;
}

/** A change to one location's level: each that moves onHand or reserved is one movement of the ledger. */
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
  /** The location the line named: its backordered units wait for stock there, and only there. */
  readonly locationId?: number;
}

/** A line's hold as its reservation recorded it: where its units are, and how many still wait as backordered. */
export type LineHold = HoldPlan;

export type Settlement = 'committed' | 'released' | 'expired';

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
  /** The location's stock would go below what is held there; `available` is what could be taken out there. */
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
