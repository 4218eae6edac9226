import { INT32_MAX } from '@platform/kernel';
import {
  above,
  all,
  any,
  atLeast,
  atMost,
  below,
  type Condition,
  constant,
  equal,
  flag,
  holds,
  minus,
  not,
  plus,
  type Term,
  value,
  type Values,
} from './condition';

/**
 * The stock rules a store may also render into one statement (a PostgreSQL
 * adjustment made at once), each written here once as a Condition: the
 * ProductStock aggregate evaluates them, the statement renders them, and
 * persistence's rendered-rules test holds the two together at every boundary.
 * The rest of the rules (allocation, settlement, transfers) are plain methods
 * of the aggregate: no statement restates them.
 */

/** A product's stock never goes above this, nor below 0 (the stores' int4 columns). */
export const STOCK_MAX = INT32_MAX;

/** What a product's totals are called where a rule reads them. */
export type ProductName =
  | 'quantityInStock'
  | 'reservedQuantity'
  | 'committedQuantity'
  | 'qualityControlQuantity'
  | 'damagedQuantity'
  | 'backorderedQuantity'
  | 'lowStockThreshold';

/**
 * What a product can still sell or hold: its stock less what is set aside
 * (held by holds, committed to paid orders, in quality control, damaged) and
 * what backorders wait for (they take the next stock). Below 0 only while
 * backorders wait.
 */
export const AVAILABLE: Term<Exclude<ProductName, 'lowStockThreshold'>> = minus(
  minus(
    minus(
      minus(minus(value('quantityInStock'), value('reservedQuantity')), value('committedQuantity')),
      value('qualityControlQuantity'),
    ),
    value('damagedQuantity'),
  ),
  value('backorderedQuantity'),
);

/** A product is out of stock with nothing available (AVAILABLE), low below its threshold (0: never low), else in. */
export const STOCK_STATE = {
  out: atMost(value('available'), constant(0)),
  low: below(value('available'), value('lowStockThreshold')),
} as const satisfies Record<string, Condition<'available' | 'lowStockThreshold'>>;

/** What a level's rules read: its quantities in each state. */
export type LevelName = 'onHand' | 'reserved' | 'committed' | 'qualityControl' | 'damaged' | 'incoming';

/** The units of a level set aside from sale: held, committed, in quality control, damaged. */
const SET_ASIDE: Term<'reserved' | 'committed' | 'qualityControl' | 'damaged'> = plus(
  plus(plus(value('reserved'), value('committed')), value('qualityControl')),
  value('damaged'),
);

/** What a location can give to a hold or a sale: its units on hand that are set aside in no state. */
export const LEVEL_AVAILABLE: Term<Exclude<LevelName, 'incoming'>> = minus(value('onHand'), SET_ASIDE);

/** A level has units available: a hold may take from it, and a search by location finds its product. */
export const LEVEL_HAS_AVAILABLE: Condition<LevelName> = above(LEVEL_AVAILABLE, constant(0));

/**
 * A level that holds nothing: no units in any state, none on their way (removable, or not in the way of a PUT). The
 * states are within on hand, so on hand 0 says they are 0; each is named all the same, so that a level outside its
 * checks is never called empty.
 */
export const LEVEL_IS_EMPTY: Condition<LevelName> = all(
  equal(value('onHand'), constant(0)),
  equal(value('reserved'), constant(0)),
  equal(value('committed'), constant(0)),
  equal(value('qualityControl'), constant(0)),
  equal(value('damaged'), constant(0)),
  equal(value('incoming'), constant(0)),
);

/** What a change's deltas are called where MOVES_STOCK reads them. */
export type DeltaName = 'quantityDelta' | 'reservedDelta' | 'committedDelta' | 'qualityControlDelta' | 'damagedDelta';

/**
 * A change moves stock, and is a movement of the ledger, when it moves on hand or any state of it (incoming is not).
 */
export const MOVES_STOCK: Condition<DeltaName> = any(
  not(equal(value('quantityDelta'), constant(0))),
  not(equal(value('reservedDelta'), constant(0))),
  not(equal(value('committedDelta'), constant(0))),
  not(equal(value('qualityControlDelta'), constant(0))),
  not(equal(value('damagedDelta'), constant(0))),
);

/**
 * Adding `delta` available units at a location never takes its on hand below what is set aside there (held,
 * committed, in quality control, damaged), nor below 0.
 */
export const KEEPS_HOLDS: Condition<Exclude<LevelName, 'incoming'> | 'delta'> = atLeast(
  plus(value('onHand'), value('delta')),
  SET_ASIDE,
);

/** Adding `delta` never takes the product's stock above STOCK_MAX. */
export const WITHIN_STOCK_MAX: Condition<'quantityInStock' | 'delta'> = atMost(
  plus(value('quantityInStock'), value('delta')),
  constant(STOCK_MAX),
);

/** Stock that arrives while backordered holds wait fills them first (ProductStock.fill). */
export const ARRIVAL_FILLS: Condition<'delta' | 'backorderedQuantity'> = all(
  above(value('delta'), constant(0)),
  above(value('backorderedQuantity'), constant(0)),
);

/** A PUT's new stock at the default location covers what is set aside there. */
export const COVERS_HOLDS: Condition<'quantity' | 'reserved' | 'committed' | 'qualityControl' | 'damaged'> = atLeast(
  value('quantity'),
  SET_ASIDE,
);

/** What the low-stock rules read: the product's available units after the change, its threshold and its alert. */
export type LowStockName = 'available' | 'lowStockThreshold' | 'lowStockAlert' | 'hysteresis';

const alerting = above(value('lowStockThreshold'), constant(0));

/**
 * The low-stock crossing. A threshold of 0 alerts nothing. A product not
 * alerted turns low below its threshold; an alerted one is restored at
 * threshold + hysteresis or more (LOW_STOCK_HYSTERESIS), and quietly cleared
 * when its threshold is turned off.
 */
export const LOW_STOCK = {
  turnsLow: all(not(flag('lowStockAlert')), alerting, below(value('available'), value('lowStockThreshold'))),
  restores: all(
    flag('lowStockAlert'),
    alerting,
    atLeast(value('available'), plus(value('lowStockThreshold'), value('hysteresis'))),
  ),
  clearsQuietly: all(flag('lowStockAlert'), equal(value('lowStockThreshold'), constant(0))),
} as const satisfies Record<string, Condition<LowStockName>>;

/** The alert stays as it is: no event, no change of the flag. */
export const LOW_STOCK_STEADY: Condition<LowStockName> = all(
  not(LOW_STOCK.turnsLow),
  not(LOW_STOCK.restores),
  not(LOW_STOCK.clearsQuietly),
);

/** An event a stock movement causes: the product fell below its threshold, or came back above it. */
export type LowStockEvent = 'stock.level.low' | 'stock.level.restored';

/** What a change does to the alert: the flag after it, and the event when it crosses. */
export interface LowStockCrossing {
  readonly alert: boolean;
  readonly event?: LowStockEvent;
}

/** The crossing a change makes that leaves `values.available` units available (LOW_STOCK). */
export function lowStockCrossing(values: Values<LowStockName>): LowStockCrossing {
  if (holds(LOW_STOCK.turnsLow, values)) return { alert: true, event: 'stock.level.low' };
  if (holds(LOW_STOCK.restores, values)) return { alert: false, event: 'stock.level.restored' };
  if (holds(LOW_STOCK.clearsQuietly, values)) return { alert: false };
  return { alert: values.lowStockAlert === true };
}
