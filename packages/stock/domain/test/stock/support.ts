import { expect } from 'chai';
import {
  type Location,
  type LocationLevel,
  levelIsValid,
  Money,
  Product,
  ProductDetails,
  ProductStock,
  StockChange,
  type StockPolicy,
  type StockTransfer,
} from '../../src';

export const PRODUCT_ID = 7;

/** The set-aside states beside reserved: none unless told. */
export type States = Partial<Pick<LocationLevel, 'committed' | 'qualityControl' | 'damaged'>>;

/** A product's level at a location. */
export const level = (
  locationId: number,
  onHand: number,
  reserved = 0,
  incoming = 0,
  { committed = 0, qualityControl = 0, damaged = 0 }: States = {},
): LocationLevel => ({ locationId, onHand, reserved, committed, qualityControl, damaged, incoming });

export const location = (id: number, priority: number): Location => ({
  id,
  code: `location-${id}`,
  name: `Location ${id}`,
  priority,
});

const at = new Date('2026-11-25T10:00:00Z');

/** Transfer `transfer-1` of the product, in transit. */
export const transfer = (fromLocationId: number, toLocationId: number, quantity: number): StockTransfer => ({
  id: 'transfer-1',
  productId: PRODUCT_ID,
  fromLocationId,
  toLocationId,
  quantity,
  reference: 'restock-north',
  status: 'in-transit',
  createdAt: at,
  updatedAt: at,
});

export const policy = (lowStockHysteresis = 1): StockPolicy => ({ lowStockHysteresis });

export interface StockSetup {
  readonly levels: readonly LocationLevel[];
  readonly backordered?: number;
  readonly backorderLimit?: number;
  readonly lowStockThreshold?: number;
  readonly lowStockAlert?: boolean;
  readonly version?: number;
  readonly sequence?: number;
}

const sum = (numbers: readonly number[]): number => numbers.reduce((total, each) => total + each, 0);

/** A product whose totals are its levels' sums, with that stock. */
export function stockOf(setup: StockSetup): ProductStock {
  const { levels, backordered = 0, backorderLimit = 0, lowStockThreshold = 0, lowStockAlert = false } = setup;
  const details = ProductDetails.create({
    name: 'Chair',
    description: '',
    price: Money.fromCents(4900),
    quantityInStock: sum(levels.map((each) => each.onHand)),
    backorderLimit,
    lowStockThreshold,
  });
  const total = (state: keyof LocationLevel) => sum(levels.map((each) => each[state]));
  const product = Product.of(PRODUCT_ID, details, setup.version ?? 3, total('reserved'), {
    committedQuantity: total('committed'),
    qualityControlQuantity: total('qualityControl'),
    damagedQuantity: total('damaged'),
    backorderedQuantity: backordered,
    lowStockAlert,
  });
  return ProductStock.of(product, levels, setup.sequence ?? 20);
}

/** The answer is a change (not a refusal, not undefined). */
export function changeOf(answer: object | undefined): StockChange {
  expect(answer, 'a change').to.be.an.instanceOf(StockChange);
  return answer as StockChange;
}

/** The deltas of the states beside on hand and reserved, as a movement names them. */
const STATE_DELTAS = ['committedDelta', 'qualityControlDelta', 'damagedDelta'] as const;

/**
 * The movements' quantities alone: what a table of cases spells out. On hand and reserved always; the other states'
 * deltas where they move, so a case names only what its verb touches.
 */
export const moves = (change: StockChange): Record<string, string | number>[] =>
  change.movements.map((movement) => {
    const { kind, locationId, quantityDelta, reservedDelta } = movement;
    const states = STATE_DELTAS.filter((name) => movement[name] !== 0).map((name) => [name, movement[name]] as const);
    return { kind, locationId, quantityDelta, reservedDelta, ...Object.fromEntries(states) };
  });

/** What a level says of its quantities, without its location. */
const quantities = ({ onHand, reserved, committed, qualityControl, damaged }: LocationLevel) => ({
  onHand,
  reserved,
  committed,
  qualityControl,
  damaged,
});

/** Each quantity a movement moves, by the name of the level's quantity it moves. */
const DELTA_OF = {
  onHand: 'quantityDelta',
  reserved: 'reservedDelta',
  committed: 'committedDelta',
  qualityControl: 'qualityControlDelta',
  damaged: 'damagedDelta',
} as const;

/**
 * What every change keeps: replayed from the stock before, each movement says
 * the product's totals and its level right after it and is numbered next; per
 * location its deltas sum to the level's change in every state; the product's
 * totals are its levels' sums; every level is valid; the product moves one
 * version per step.
 */
export function expectLedgerKept(change: StockChange): void {
  const { before, after, movements } = change;
  const running = new Map(before.levels.map((each) => [each.locationId, { ...each }]));
  let [quantity, reserved] = [before.product.quantityInStock, before.product.reservedQuantity];
  movements.forEach((movement, index) => {
    const at = running.get(movement.locationId) ?? level(movement.locationId, 0);
    const next = { ...at };
    for (const [name, delta] of Object.entries(DELTA_OF)) next[name as keyof typeof DELTA_OF] += movement[delta];
    running.set(movement.locationId, next);
    quantity += movement.quantityDelta;
    reserved += movement.reservedDelta;
    expect(movement, `movement ${index}`).to.include({
      quantityAfter: quantity,
      reservedAfter: reserved,
      ...quantities(next),
      sequence: before.sequence + index + 1,
    });
  });
  const locationIds = new Set([...before.levels, ...after.levels].map((each) => each.locationId));
  for (const locationId of locationIds) {
    const here = movements.filter((movement) => movement.locationId === locationId);
    const [from, to] = [before.levelAt(locationId), after.levelAt(locationId)];
    for (const [name, delta] of Object.entries(DELTA_OF)) {
      const state = name as keyof typeof DELTA_OF;
      expect(sum(here.map((each) => each[delta])), `${state} moved at ${locationId}`).to.equal(to[state] - from[state]);
    }
  }
  for (const each of after.levels) expect(levelIsValid(each), `level ${each.locationId}`).to.equal(true);
  const total = (state: keyof LocationLevel) => sum(after.levels.map((each) => each[state]));
  const { product } = after;
  expect(
    {
      quantityInStock: product.quantityInStock,
      reservedQuantity: product.reservedQuantity,
      committedQuantity: product.committedQuantity,
      qualityControlQuantity: product.qualityControlQuantity,
      damagedQuantity: product.damagedQuantity,
    },
    'the product’s totals are its levels’ sums',
  ).to.deep.equal({
    quantityInStock: total('onHand'),
    reservedQuantity: total('reserved'),
    committedQuantity: total('committed'),
    qualityControlQuantity: total('qualityControl'),
    damagedQuantity: total('damaged'),
  });
  expect(after.sequence, 'the last movement’s sequence').to.equal(before.sequence + movements.length);
  expect(after.product.version, 'one version per step').to.equal(before.product.version + change.steps.length);
}
