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

/** A product's level at a location. */
export const level = (locationId: number, onHand: number, reserved = 0, incoming = 0): LocationLevel => ({
  locationId,
  onHand,
  reserved,
  incoming,
});

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
  const product = Product.of(PRODUCT_ID, details, setup.version ?? 3, sum(levels.map((each) => each.reserved)), {
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

/** The movements' quantities alone: what a table of cases spells out. */
export const moves = (change: StockChange) =>
  change.movements.map(({ kind, locationId, quantityDelta, reservedDelta }) => ({
    kind,
    locationId,
    quantityDelta,
    reservedDelta,
  }));

/**
 * What every change keeps: replayed from the stock before, each movement says
 * the product's totals and its level right after it and is numbered next; per
 * location its deltas sum to the level's change; the product's totals are its
 * levels' sums; every level is valid; the product moves one version per step.
 */
export function expectLedgerKept(change: StockChange): void {
  const { before, after, movements } = change;
  const running = new Map(before.levels.map((each) => [each.locationId, { ...each }]));
  let [quantity, reserved] = [before.product.quantityInStock, before.product.reservedQuantity];
  movements.forEach((movement, index) => {
    const at = running.get(movement.locationId) ?? level(movement.locationId, 0);
    const next = { ...at, onHand: at.onHand + movement.quantityDelta, reserved: at.reserved + movement.reservedDelta };
    running.set(movement.locationId, next);
    quantity += movement.quantityDelta;
    reserved += movement.reservedDelta;
    expect(movement, `movement ${index}`).to.include({
      quantityAfter: quantity,
      reservedAfter: reserved,
      onHand: next.onHand,
      reserved: next.reserved,
      sequence: before.sequence + index + 1,
    });
  });
  const locationIds = new Set([...before.levels, ...after.levels].map((each) => each.locationId));
  for (const locationId of locationIds) {
    const here = movements.filter((movement) => movement.locationId === locationId);
    const [from, to] = [before.levelAt(locationId), after.levelAt(locationId)];
    expect(sum(here.map((each) => each.quantityDelta)), `on hand moved at ${locationId}`).to.equal(
      to.onHand - from.onHand,
    );
    expect(sum(here.map((each) => each.reservedDelta)), `reserved moved at ${locationId}`).to.equal(
      to.reserved - from.reserved,
    );
  }
  for (const each of after.levels) expect(levelIsValid(each), `level ${each.locationId}`).to.equal(true);
  expect(after.product.quantityInStock, 'stock is the levels’ on hand').to.equal(
    sum(after.levels.map((each) => each.onHand)),
  );
  expect(after.product.reservedQuantity, 'reserved is the levels’ reserved').to.equal(
    sum(after.levels.map((each) => each.reserved)),
  );
  expect(after.sequence, 'the last movement’s sequence').to.equal(before.sequence + movements.length);
  expect(after.product.version, 'one version per step').to.equal(before.product.version + change.steps.length);
}
