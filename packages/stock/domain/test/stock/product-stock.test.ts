import { expect } from 'chai';
import {
  type AllocationStrategy,
  type Backorder,
  type Commitment,
  DEFAULT_LOCATION_ID,
  type Fill,
  type HoldPlan,
  isRefusal,
  type LevelAdjustmentRefusal,
  type LineHold,
  type LineRequest,
  type Location,
  type LocationLevel,
  locationIsEmpty,
  type LowStockSignal,
  Product,
  ProductStock,
  type RemovalRefusal,
  type Settlement,
  type ShortHold,
  STOCK_MAX,
  StockChange,
  type StockReplacementRefusal,
} from '../../src';
import {
  changeOf,
  expectLedgerKept,
  level,
  location,
  moves,
  policy,
  PRODUCT_ID,
  type StockSetup,
  stockOf,
  transfer,
} from './support';

describe('ProductStock.hold', () => {
  /** Location 2 comes first by priority, though its id is higher; location 3 has no level in most cases. */
  const locations = [location(1, 10), location(2, 0), location(3, 5)];
  const plan = (backordered: number, ...allocations: [locationId: number, quantity: number][]): HoldPlan => ({
    allocations: allocations.map(([locationId, quantity]) => ({ locationId, quantity })),
    backordered,
  });
  const short = (available: number): ShortHold => ({ status: 'short', available });

  const cases: {
    title: string;
    stock: StockSetup;
    line: LineRequest;
    strategy?: AllocationStrategy;
    locations?: readonly Location[];
    expected: HoldPlan | ShortHold;
  }[] = [
    {
      title: 'holds exactly what is available',
      stock: { levels: [level(1, 5, 2)] },
      line: { quantity: 3 },
      expected: plan(0, [1, 3]),
    },
    {
      title: 'refuses one unit more than is available, saying how many are, and holds nothing',
      stock: { levels: [level(1, 5, 2)] },
      line: { quantity: 4 },
      expected: short(3),
    },
    {
      title: 'splits a line over two locations, lower priority first (not lower id)',
      stock: { levels: [level(1, 4), level(2, 3)] },
      line: { quantity: 5 },
      expected: plan(0, [2, 3], [1, 2]),
    },
    {
      title: 'splits a line from the location with most available first under most-available',
      stock: { levels: [level(1, 4), level(2, 3)] },
      line: { quantity: 5 },
      strategy: 'most-available',
      expected: plan(0, [1, 4], [2, 1]),
    },
    {
      title: 'takes from locations with as many available in priority order under most-available',
      stock: { levels: [level(1, 3), level(2, 3)] },
      line: { quantity: 4 },
      strategy: 'most-available',
      expected: plan(0, [2, 3], [1, 1]),
    },
    {
      title: 'passes over a location whose units are all held',
      stock: { levels: [level(1, 3), level(2, 2, 2)] },
      line: { quantity: 2 },
      expected: plan(0, [1, 2]),
    },
    {
      title: 'holds exactly what all locations have together',
      stock: { levels: [level(1, 4), level(2, 3), level(3, 1, 1)] },
      line: { quantity: 7 },
      expected: plan(0, [2, 3], [1, 4]),
    },
    {
      title: 'refuses one unit more than all locations have together',
      stock: { levels: [level(1, 4), level(2, 3), level(3, 1, 1)] },
      line: { quantity: 8 },
      expected: short(7),
    },
    {
      title: 'takes from the named location only, even when another has more',
      stock: { levels: [level(1, 2), level(2, 9)] },
      line: { quantity: 2, locationId: 1 },
      expected: { ...plan(0, [1, 2]), locationId: 1 },
    },
    {
      title: 'refuses one unit more than the named location has, saying what it has',
      stock: { levels: [level(1, 2), level(2, 9)] },
      line: { quantity: 3, locationId: 1 },
      expected: short(2),
    },
    {
      title: 'refuses at a named location the product has no level at: nothing is available there',
      stock: { levels: [level(1, 2), level(2, 9)] },
      line: { quantity: 1, locationId: 3 },
      expected: short(0),
    },
    {
      title: 'backorders the whole line at a named location with no level when it allows it',
      stock: { levels: [level(1, 2), level(2, 9)], backorderLimit: 2 },
      line: { quantity: 2, locationId: 3, allowBackorder: true },
      expected: { ...plan(2), locationId: 3 },
    },
    {
      title: 'backorders what is missing within the backorder limit',
      stock: { levels: [level(1, 3)], backorderLimit: 5 },
      line: { quantity: 5, allowBackorder: true },
      expected: plan(2, [1, 3]),
    },
    {
      title: 'backorders up to exactly the backorder limit',
      stock: { levels: [level(1, 3)], backorderLimit: 5 },
      line: { quantity: 8, allowBackorder: true },
      expected: plan(5, [1, 3]),
    },
    {
      title: 'refuses a line one unit over the backorder limit, holding nothing of it',
      stock: { levels: [level(1, 3)], backorderLimit: 5 },
      line: { quantity: 9, allowBackorder: true },
      expected: short(3),
    },
    {
      title: 'backorders nothing for a line that does not allow it, whatever the limit',
      stock: { levels: [level(1, 3)], backorderLimit: 5 },
      line: { quantity: 4 },
      expected: short(3),
    },
    {
      title: 'counts the backorders already waiting against the limit: exactly the room left',
      stock: { levels: [level(1, 3)], backordered: 2, backorderLimit: 5 },
      line: { quantity: 4, allowBackorder: true },
      expected: plan(3, [1, 1]),
    },
    {
      title: 'refuses one unit past the room the waiting backorders leave',
      stock: { levels: [level(1, 3)], backordered: 2, backorderLimit: 5 },
      line: { quantity: 5, allowBackorder: true },
      expected: short(1),
    },
    {
      title: 'leaves to the backorders waiting the units they take: exactly the rest can be held',
      stock: { levels: [level(1, 5)], backordered: 2, backorderLimit: 2 },
      line: { quantity: 3 },
      expected: plan(0, [1, 3]),
    },
    {
      title: 'refuses one unit more than the backorders waiting leave',
      stock: { levels: [level(1, 5)], backordered: 2, backorderLimit: 2 },
      line: { quantity: 4 },
      expected: short(3),
    },
    {
      title: 'bounds what a named location gives by what the backorders waiting leave of the product',
      stock: { levels: [level(1, 2), level(2, 4)], backordered: 5, backorderLimit: 5 },
      line: { quantity: 2, locationId: 2 },
      expected: short(1),
    },
    {
      title: 'answers 0 available, never less, while backorders wait for more than there is',
      stock: { levels: [level(1, 1)], backordered: 3, backorderLimit: 3 },
      line: { quantity: 1 },
      expected: short(0),
    },
    {
      title: 'holds from a product’s one level with no locations to rank it',
      stock: { levels: [level(2, 4)] },
      line: { quantity: 4 },
      locations: [],
      expected: plan(0, [2, 4]),
    },
    {
      title: 'refuses a product with no level at all',
      stock: { levels: [] },
      line: { quantity: 1 },
      expected: short(0),
    },
  ];

  for (const { title, stock: setup, line, strategy = 'priority', expected, ...rest } of cases) {
    it(title, () => {
      const stock = stockOf(setup);
      const answer = stock.hold(line, rest.locations ?? locations, strategy, policy());
      expect(isRefusal(answer) ? answer : answer.plan).to.deep.equal(expected);
      if (isRefusal(answer) || isRefusal(expected)) return;
      const { change } = answer;
      expect(moves(change)).to.deep.equal(
        expected.allocations.map(({ locationId, quantity }) => ({
          kind: 'reserved',
          locationId,
          quantityDelta: 0,
          reservedDelta: quantity,
        })),
      );
      expect(change.after.product.backorderedQuantity).to.equal((setup.backordered ?? 0) + expected.backordered);
      expect(change.steps).to.have.length(1);
      expectLedgerKept(change);
    });
  }
});

describe('ProductStock.adjust', () => {
  const cases: {
    title: string;
    stock: StockSetup;
    locationId: number;
    delta: number;
    /** The level at `locationId` after, or the refusal. */
    expected: LocationLevel | LevelAdjustmentRefusal;
  }[] = [
    {
      title: 'takes out exactly the units no hold took there',
      stock: { levels: [level(1, 5, 2), level(2, 4, 4)] },
      locationId: 1,
      delta: -3,
      expected: level(1, 2, 2),
    },
    {
      title: 'refuses one unit more, saying what can be taken out there (on hand less held)',
      stock: { levels: [level(1, 5, 2), level(2, 4, 4)] },
      locationId: 1,
      delta: -4,
      expected: { status: 'below-minimum', available: 3 },
    },
    {
      title: 'refuses to take out of a location whose units are all held',
      stock: { levels: [level(1, 5, 2), level(2, 4, 4)] },
      locationId: 2,
      delta: -1,
      expected: { status: 'below-minimum', available: 0 },
    },
    {
      title: 'empties a location with no holds, keeping its level at 0',
      stock: { levels: [level(1, 5), level(2, 1)] },
      locationId: 1,
      delta: -5,
      expected: level(1, 0),
    },
    {
      title: 'refuses to take out at a location the product has no level at',
      stock: { levels: [level(1, 5)] },
      locationId: 3,
      delta: -1,
      expected: { status: 'below-minimum', available: 0 },
    },
    {
      title: 'adds at a location the product has no level at, creating it',
      stock: { levels: [level(1, 5)] },
      locationId: 3,
      delta: 4,
      expected: level(3, 4),
    },
    {
      title: 'adds at a location and leaves its holds as they are',
      stock: { levels: [level(1, 5, 2)] },
      locationId: 1,
      delta: 3,
      expected: level(1, 8, 2),
    },
    {
      title: 'leaves the units on their way to a location as they are',
      stock: { levels: [level(1, 2, 0, 3)] },
      locationId: 1,
      delta: -2,
      expected: level(1, 0, 0, 3),
    },
    {
      title: 'raises the product to exactly STOCK_MAX in total',
      stock: { levels: [level(1, STOCK_MAX - 10), level(2, 4)] },
      locationId: 2,
      delta: 6,
      expected: level(2, 10),
    },
    {
      title: 'refuses one unit above STOCK_MAX in total, saying the stock as it is',
      stock: { levels: [level(1, STOCK_MAX - 10), level(2, 4)] },
      locationId: 2,
      delta: 7,
      expected: { status: 'above-maximum', available: STOCK_MAX - 6 },
    },
  ];

  for (const { title, stock: setup, locationId, delta, expected } of cases) {
    it(title, () => {
      const stock = stockOf(setup);
      const answer = stock.adjust(locationId, delta, policy());
      if (isRefusal(answer) || isRefusal(expected)) {
        expect(answer).to.deep.equal(expected);
        return;
      }
      expect(answer.after.levelAt(locationId)).to.deep.equal(expected);
      const others = (each: ProductStock) => each.levels.filter((other) => other.locationId !== locationId);
      expect(others(answer.after), 'the other levels').to.deep.equal(others(stock));
      expect(moves(answer)).to.deep.equal([{ kind: 'adjusted', locationId, quantityDelta: delta, reservedDelta: 0 }]);
      expectLedgerKept(answer);
    });
  }

  it('numbers its movement next, with the product’s totals and the level right after it, at the next version', () => {
    const stock = stockOf({ levels: [level(1, 5, 2), level(2, 3, 1)], version: 6, sequence: 41 });
    const change = changeOf(stock.adjust(2, 4, policy(), { kind: 'imported' }));
    expect(change.movements).to.deep.equal([
      {
        kind: 'imported',
        locationId: 2,
        quantityDelta: 4,
        reservedDelta: 0,
        committedDelta: 0,
        qualityControlDelta: 0,
        damagedDelta: 0,
        quantityAfter: 12,
        reservedAfter: 3,
        reasonCode: 'imported',
        onHand: 7,
        reserved: 1,
        committed: 0,
        qualityControl: 0,
        damaged: 0,
        sequence: 42,
      },
    ]);
    expect(change.after.sequence).to.equal(42);
    expect(change.after.product.version).to.equal(7);
    expect(change.before).to.equal(stock);
    expect(stock.levelAt(2), 'the stock before is left as it was').to.deep.equal(level(2, 3, 1));
  });
});

describe('ProductStock.replace', () => {
  const below = (quantityInStock: number, reservedQuantity: number): StockReplacementRefusal => ({
    status: 'below-reserved',
    quantityInStock,
    reservedQuantity,
  });
  const severalLocations: StockReplacementRefusal = { status: 'several-locations' };

  const cases: {
    title: string;
    stock: StockSetup;
    quantity: number;
    /** The default location's level after, the refusal, or undefined when nothing changes. */
    expected: LocationLevel | StockReplacementRefusal | undefined;
  }[] = [
    {
      title: 'answers nothing when the stock is already that',
      stock: { levels: [level(1, 5, 2)] },
      quantity: 5,
      expected: undefined,
    },
    {
      title: 'answers nothing for an unchanged stock even when other locations have some',
      stock: { levels: [level(1, 5), level(2, 1)] },
      quantity: 6,
      expected: undefined,
    },
    {
      title: 'raises the stock at the default location',
      stock: { levels: [level(1, 5, 2)] },
      quantity: 9,
      expected: level(1, 9, 2),
    },
    {
      title: 'lowers the stock at the default location',
      stock: { levels: [level(1, 5, 2)] },
      quantity: 3,
      expected: level(1, 3, 2),
    },
    {
      title: 'lowers it to exactly what is held there',
      stock: { levels: [level(1, 5, 2)] },
      quantity: 2,
      expected: level(1, 2, 2),
    },
    {
      title: 'refuses one unit below what is held there, saying the stock and what is held',
      stock: { levels: [level(1, 5, 2)] },
      quantity: 1,
      expected: below(5, 2),
    },
    {
      title: 'sets the stock of a product with no level yet, creating the default location’s',
      stock: { levels: [] },
      quantity: 4,
      expected: level(1, 4),
    },
    {
      title: 'refuses while another location has units on hand',
      stock: { levels: [level(1, 5), level(2, 1)] },
      quantity: 7,
      expected: severalLocations,
    },
    {
      title: 'refuses while another location has units held',
      stock: { levels: [level(1, 5), level(2, 1, 1)] },
      quantity: 7,
      expected: severalLocations,
    },
    {
      title: 'refuses while units are on their way to another location',
      stock: { levels: [level(1, 5), level(2, 0, 0, 3)] },
      quantity: 7,
      expected: severalLocations,
    },
    {
      title: 'sets it when another location’s level is all zero',
      stock: { levels: [level(1, 5), level(2, 0)] },
      quantity: 7,
      expected: level(1, 7),
    },
    {
      title: 'sets it while units are on their way to the default location itself',
      stock: { levels: [level(1, 5, 0, 2)] },
      quantity: 7,
      expected: level(1, 7, 0, 2),
    },
  ];

  for (const { title, stock: setup, quantity, expected } of cases) {
    it(title, () => {
      const stock = stockOf(setup);
      const answer = stock.replace(quantity, policy());
      if (answer === undefined || isRefusal(answer) || expected === undefined || isRefusal(expected)) {
        expect(answer).to.deep.equal(expected);
        return;
      }
      expect(answer.after.levelAt(DEFAULT_LOCATION_ID)).to.deep.equal(expected);
      expect(answer.after.product.quantityInStock).to.equal(quantity);
      expect(moves(answer)).to.deep.equal([
        {
          kind: 'updated',
          locationId: DEFAULT_LOCATION_ID,
          quantityDelta: quantity - stock.product.quantityInStock,
          reservedDelta: 0,
        },
      ]);
      expectLedgerKept(answer);
    });
  }
});

describe('ProductStock.settle', () => {
  const hold = (backordered: number, ...allocations: [locationId: number, quantity: number][]): LineHold => ({
    allocations: allocations.map(([locationId, quantity]) => ({ locationId, quantity })),
    backordered,
  });
  const twoLocations: StockSetup = { levels: [level(1, 5, 3), level(2, 4, 2)] };

  const cases: {
    title: string;
    stock: StockSetup;
    hold: LineHold;
    settlement: Settlement;
    commitment?: Commitment;
    expected:
      | {
          moves: ReturnType<typeof moves>;
          totals: {
            quantityInStock: number;
            reservedQuantity: number;
            committedQuantity: number;
            backorderedQuantity: number;
          };
        }
      | { status: 'backorder-not-filled'; backordered: number };
  }[] = [
    {
      title: 'commits an order’s hold at exactly its locations: its units wait there as committed, still on hand',
      stock: twoLocations,
      hold: hold(0, [1, 3], [2, 2]),
      settlement: 'committed',
      expected: {
        moves: [
          { kind: 'committed', locationId: 1, quantityDelta: 0, reservedDelta: -3, committedDelta: 3 },
          { kind: 'committed', locationId: 2, quantityDelta: 0, reservedDelta: -2, committedDelta: 2 },
        ],
        totals: { quantityInStock: 9, reservedQuantity: 0, committedQuantity: 5, backorderedQuantity: 0 },
      },
    },
    {
      title: 'commits an API hold at once at exactly its locations: its units leave the stock there',
      stock: twoLocations,
      hold: hold(0, [1, 3], [2, 2]),
      settlement: 'committed',
      commitment: 'at-once',
      expected: {
        moves: [
          { kind: 'committed', locationId: 1, quantityDelta: -3, reservedDelta: -3 },
          { kind: 'committed', locationId: 2, quantityDelta: -2, reservedDelta: -2 },
        ],
        totals: { quantityInStock: 4, reservedQuantity: 0, committedQuantity: 0, backorderedQuantity: 0 },
      },
    },
    {
      title: 'commits an order’s hold beside units other orders committed there, adding to them',
      stock: { levels: [level(1, 6, 3, 0, { committed: 3 })] },
      hold: hold(0, [1, 3]),
      settlement: 'committed',
      expected: {
        moves: [{ kind: 'committed', locationId: 1, quantityDelta: 0, reservedDelta: -3, committedDelta: 3 }],
        totals: { quantityInStock: 6, reservedQuantity: 0, committedQuantity: 6, backorderedQuantity: 0 },
      },
    },
    {
      title: 'releases a hold at exactly its locations: its units are available there again',
      stock: twoLocations,
      hold: hold(0, [1, 3], [2, 2]),
      settlement: 'released',
      expected: {
        moves: [
          { kind: 'released', locationId: 1, quantityDelta: 0, reservedDelta: -3 },
          { kind: 'released', locationId: 2, quantityDelta: 0, reservedDelta: -2 },
        ],
        totals: { quantityInStock: 9, reservedQuantity: 0, committedQuantity: 0, backorderedQuantity: 0 },
      },
    },
    {
      title: 'expires a hold as it releases one, as expired',
      stock: twoLocations,
      hold: hold(0, [1, 3], [2, 2]),
      settlement: 'expired',
      expected: {
        moves: [
          { kind: 'expired', locationId: 1, quantityDelta: 0, reservedDelta: -3 },
          { kind: 'expired', locationId: 2, quantityDelta: 0, reservedDelta: -2 },
        ],
        totals: { quantityInStock: 9, reservedQuantity: 0, committedQuantity: 0, backorderedQuantity: 0 },
      },
    },
    {
      title: 'settles only the hold’s units, leaving the other holds there',
      stock: twoLocations,
      hold: hold(0, [1, 1]),
      settlement: 'committed',
      expected: {
        moves: [{ kind: 'committed', locationId: 1, quantityDelta: 0, reservedDelta: -1, committedDelta: 1 }],
        totals: { quantityInStock: 9, reservedQuantity: 4, committedQuantity: 1, backorderedQuantity: 0 },
      },
    },
    {
      title: 'refuses to commit a hold whose backordered units have not arrived',
      stock: { levels: [level(1, 5, 3)], backordered: 2, backorderLimit: 2 },
      hold: hold(2, [1, 3]),
      settlement: 'committed',
      expected: { status: 'backorder-not-filled', backordered: 2 },
    },
    {
      title: 'releases a partly backordered hold: its units go back, its backorders are dropped',
      stock: { levels: [level(1, 5, 3)], backordered: 5, backorderLimit: 5 },
      hold: hold(2, [1, 3]),
      settlement: 'released',
      expected: {
        moves: [{ kind: 'released', locationId: 1, quantityDelta: 0, reservedDelta: -3 }],
        totals: { quantityInStock: 5, reservedQuantity: 0, committedQuantity: 0, backorderedQuantity: 3 },
      },
    },
    {
      title: 'expires a hold that only backordered: no movement, its backorders dropped',
      stock: { levels: [level(1, 0)], backordered: 2, backorderLimit: 2 },
      hold: hold(2),
      settlement: 'expired',
      expected: {
        moves: [],
        totals: { quantityInStock: 0, reservedQuantity: 0, committedQuantity: 0, backorderedQuantity: 0 },
      },
    },
  ];

  for (const { title, stock: setup, hold: line, settlement, commitment, expected } of cases) {
    it(title, () => {
      const answer = stockOf(setup).settle(line, settlement, policy(), commitment);
      if (isRefusal(answer) || isRefusal(expected)) {
        expect(answer).to.deep.equal(expected);
        return;
      }
      expect(moves(answer)).to.deep.equal(expected.moves);
      const { quantityInStock, reservedQuantity, committedQuantity, backorderedQuantity } = answer.after.product;
      expect({ quantityInStock, reservedQuantity, committedQuantity, backorderedQuantity }).to.deep.equal(
        expected.totals,
      );
      expect(answer.steps).to.have.length(1);
      expectLedgerKept(answer);
    });
  }
});

describe('ProductStock transfers', () => {
  const send = (from: number, to: number, quantity: number) => (stock: ProductStock) =>
    stock.sendTransfer(transfer(from, to, quantity), policy());
  const end =
    (outcome: 'received' | 'cancelled', from: number, to: number, quantity: number) => (stock: ProductStock) =>
      stock.endTransfer(transfer(from, to, quantity), outcome, policy());

  const cases: {
    title: string;
    levels: LocationLevel[];
    act: (stock: ProductStock) => StockChange | ShortHold;
    expected: { levels: LocationLevel[]; moves: ReturnType<typeof moves> } | ShortHold;
  }[] = [
    {
      title: 'sends exactly what is available at from: it leaves on hand there and shows as incoming at to',
      levels: [level(1, 5, 2), level(2, 1)],
      act: send(1, 2, 3),
      expected: {
        levels: [level(1, 2, 2), level(2, 1, 0, 3)],
        moves: [{ kind: 'transfer-sent', locationId: 1, quantityDelta: -3, reservedDelta: 0 }],
      },
    },
    {
      title: 'refuses to send one unit more than is available at from, saying what is',
      levels: [level(1, 5, 2), level(2, 1)],
      act: send(1, 2, 4),
      expected: { status: 'short', available: 3 },
    },
    {
      title: 'refuses to send from a location the product has no level at',
      levels: [level(1, 5)],
      act: send(3, 1, 1),
      expected: { status: 'short', available: 0 },
    },
    {
      title: 'sends to a location with no level: creates it with incoming units only, and no movement there',
      levels: [level(1, 5)],
      act: send(1, 3, 2),
      expected: {
        levels: [level(1, 3), level(3, 0, 0, 2)],
        moves: [{ kind: 'transfer-sent', locationId: 1, quantityDelta: -2, reservedDelta: 0 }],
      },
    },
    {
      title: 'receives: the incoming units become on hand at to',
      levels: [level(1, 3), level(3, 0, 0, 2)],
      act: end('received', 1, 3, 2),
      expected: {
        levels: [level(1, 3), level(3, 2)],
        moves: [{ kind: 'transfer-received', locationId: 3, quantityDelta: 2, reservedDelta: 0 }],
      },
    },
    {
      title: 'receives beside the units and holds already at to, and other units still on their way',
      levels: [level(1, 3), level(3, 4, 1, 5)],
      act: end('received', 1, 3, 2),
      expected: {
        levels: [level(1, 3), level(3, 6, 1, 3)],
        moves: [{ kind: 'transfer-received', locationId: 3, quantityDelta: 2, reservedDelta: 0 }],
      },
    },
    {
      title: 'cancels: the units go back on hand at from, and to expects them no more',
      levels: [level(1, 3), level(3, 0, 0, 2)],
      act: end('cancelled', 1, 3, 2),
      expected: {
        levels: [level(1, 5), level(3, 0)],
        moves: [{ kind: 'transfer-cancelled', locationId: 1, quantityDelta: 2, reservedDelta: 0 }],
      },
    },
  ];

  for (const { title, levels, act, expected } of cases) {
    it(title, () => {
      const answer = act(stockOf({ levels }));
      if (isRefusal(answer) || isRefusal(expected)) {
        expect(answer).to.deep.equal(expected);
        return;
      }
      expect(answer.after.levels).to.deep.equal(expected.levels);
      expect(moves(answer)).to.deep.equal(expected.moves);
      for (const movement of answer.movements) expect(movement.transferId).to.equal('transfer-1');
      expectLedgerKept(answer);
    });
  }

  it('sends and then receives: the units are at to, and the product has its stock again', () => {
    const stock = stockOf({ levels: [level(1, 5)] });
    const sent = changeOf(send(1, 2, 2)(stock));
    expect(sent.after.product.quantityInStock, 'units on their way are in no location’s stock').to.equal(3);
    const both = sent.followedBy(end('received', 1, 2, 2)(sent.after));
    expect(both.after.levels).to.deep.equal([level(1, 3), level(2, 2)]);
    expect(both.after.product.quantityInStock).to.equal(5);
    expectLedgerKept(both);
  });
});

describe('ProductStock.fill', () => {
  const backorders: Backorder[] = [
    { reservationId: 'r-1', quantity: 2 },
    { reservationId: 'r-2', quantity: 3 },
    { reservationId: 'r-3', quantity: 1 },
  ];
  const fill = (reservationId: string, locationId: number, quantity: number): Fill => ({
    reservationId,
    locationId,
    quantity,
  });

  const cases: {
    title: string;
    levels: LocationLevel[];
    locationId: number;
    backorders?: Backorder[];
    expected: Fill[];
  }[] = [
    {
      title: 'fills the oldest first, and the last only as far as the units go',
      levels: [level(1, 4)],
      locationId: 1,
      expected: [fill('r-1', 1, 2), fill('r-2', 1, 2)],
    },
    {
      title: 'fills every backorder when the units cover them exactly',
      levels: [level(1, 6)],
      locationId: 1,
      expected: [fill('r-1', 1, 2), fill('r-2', 1, 3), fill('r-3', 1, 1)],
    },
    {
      title: 'fills with the units no hold took only',
      levels: [level(1, 5, 2)],
      locationId: 1,
      expected: [fill('r-1', 1, 2), fill('r-2', 1, 1)],
    },
    {
      title: 'fills only at the location the stock arrived at',
      levels: [level(1, 1), level(2, 3)],
      locationId: 2,
      expected: [fill('r-1', 2, 2), fill('r-2', 2, 1)],
    },
    {
      title: 'fills a first backorder larger than the units partly, and stops there',
      levels: [level(1, 2)],
      locationId: 1,
      backorders: backorders.slice(1),
      expected: [fill('r-2', 1, 2)],
    },
    {
      title: 'fills nothing, in no step, when nothing is available there',
      levels: [level(1, 2, 2)],
      locationId: 1,
      expected: [],
    },
    {
      title: 'fills nothing at a location the product has no level at',
      levels: [level(1, 4)],
      locationId: 2,
      expected: [],
    },
  ];

  for (const { title, levels, locationId, expected, ...rest } of cases) {
    it(title, () => {
      const stock = stockOf({ levels, backordered: 6, backorderLimit: 6 });
      const change = stock.fill(locationId, rest.backorders ?? backorders, policy());
      expect(change.fills).to.deep.equal(expected);
      expect(change.steps, 'one step per fill').to.have.length(expected.length);
      change.steps.forEach((step, index) => {
        const { reservationId, quantity } = expected[index]!;
        expect(step.movements).to.have.length(1);
        expect(step.movements[0]).to.include({
          kind: 'backorder-filled',
          locationId,
          reservationId,
          quantityDelta: 0,
          reservedDelta: quantity,
        });
      });
      const filled = expected.reduce((sum, each) => sum + each.quantity, 0);
      expect(change.after.product.backorderedQuantity).to.equal(6 - filled);
      expect(change.after.product.availableQuantity, 'a fill moves no unit out of available').to.equal(
        stock.product.availableQuantity,
      );
      if (expected.length === 0) expect(change.after).to.equal(stock);
      expectLedgerKept(change);
    });
  }
});

describe('ProductStock.fill and a line that named its location', () => {
  // A line that names a location holds only from there (LineRequest.locationId): its backordered units wait for
  // stock at that location, which the hold's plan records and the repository hands back with the Backorder.
  const named = () => {
    const stock = stockOf({ levels: [level(1, 4), level(3, 0)], backorderLimit: 2 });
    const held = stock.hold({ quantity: 2, locationId: 3, allowBackorder: true }, [], 'priority', policy());
    if (isRefusal(held)) expect.fail(`refused: ${held.status}`);
    return held;
  };

  it('records the named location in the plan of a line that backorders there', () => {
    expect(named().plan).to.deep.equal({ allocations: [], backordered: 2, locationId: 3 });
  });

  it('does not fill it with units arriving elsewhere, and fills the next backorder that may take them', () => {
    const arrival = changeOf(named().change.after.adjust(1, 2, policy()));
    const backorders = [
      { reservationId: 'r-1', quantity: 2, locationId: 3 },
      { reservationId: 'r-2', quantity: 1 },
    ];
    expect(arrival.after.fill(1, backorders, policy()).fills).to.deep.equal([
      { reservationId: 'r-2', locationId: 1, quantity: 1 },
    ]);
  });

  it('fills it with units arriving at the location it named', () => {
    const arrival = changeOf(named().change.after.adjust(3, 2, policy()));
    expect(arrival.after.fill(3, [{ reservationId: 'r-1', quantity: 2, locationId: 3 }], policy()).fills).to.deep.equal(
      [{ reservationId: 'r-1', locationId: 3, quantity: 2 }],
    );
  });
});

describe('ProductStock.fillsOnArrival', () => {
  const cases = [
    { delta: 0, backordered: 2, fills: false },
    { delta: 1, backordered: 2, fills: true },
    { delta: 1, backordered: 0, fills: false },
    { delta: -1, backordered: 2, fills: false },
  ];

  for (const { delta, backordered, fills } of cases) {
    it(`${fills ? 'fills' : 'does not fill'} on a change of ${delta} with ${backordered} backordered`, () => {
      const stock = stockOf({ levels: [level(1, 1)], backordered, backorderLimit: 2 });
      expect(stock.fillsOnArrival(delta)).to.equal(fills);
    });
  }
});

describe('ProductStock low-stock crossings', () => {
  const low = (available: number, threshold: number): LowStockSignal => ({
    event: 'stock.level.low',
    available,
    threshold,
  });
  const restored = (available: number, threshold: number): LowStockSignal => ({
    event: 'stock.level.restored',
    available,
    threshold,
  });

  const cases: {
    title: string;
    threshold: number;
    alerted: boolean;
    hysteresis?: number;
    onHand: number;
    delta: number;
    expected: { signal?: LowStockSignal; alert: boolean };
  }[] = [
    {
      title: 'turns low as available goes one below the threshold',
      threshold: 5,
      alerted: false,
      onHand: 5,
      delta: -1,
      expected: { signal: low(4, 5), alert: true },
    },
    {
      title: 'stays in stock at exactly the threshold',
      threshold: 5,
      alerted: false,
      onHand: 6,
      delta: -1,
      expected: { alert: false },
    },
    {
      title: 'says nothing more as an alerted product goes lower',
      threshold: 5,
      alerted: true,
      onHand: 3,
      delta: -1,
      expected: { alert: true },
    },
    {
      title: 'stays alerted, with no event, back at the threshold (below threshold + hysteresis 1)',
      threshold: 5,
      alerted: true,
      onHand: 4,
      delta: 1,
      expected: { alert: true },
    },
    {
      title: 'is restored at exactly threshold + hysteresis 1',
      threshold: 5,
      alerted: true,
      onHand: 4,
      delta: 2,
      expected: { signal: restored(6, 5), alert: false },
    },
    {
      title: 'stays alerted one below threshold + hysteresis 2',
      threshold: 5,
      alerted: true,
      hysteresis: 2,
      onHand: 4,
      delta: 2,
      expected: { alert: true },
    },
    {
      title: 'is restored at exactly threshold + hysteresis 2',
      threshold: 5,
      alerted: true,
      hysteresis: 2,
      onHand: 4,
      delta: 3,
      expected: { signal: restored(7, 5), alert: false },
    },
    {
      title: 'turns low at its next change a product already below its threshold but not yet alerted',
      threshold: 5,
      alerted: false,
      onHand: 2,
      delta: 1,
      expected: { signal: low(3, 5), alert: true },
    },
    {
      title: 'alerts nothing with a threshold of 0, even at 0 available',
      threshold: 0,
      alerted: false,
      onHand: 1,
      delta: -1,
      expected: { alert: false },
    },
    {
      title: 'quietly clears an alerted product whose threshold was turned off',
      threshold: 0,
      alerted: true,
      onHand: 1,
      delta: -1,
      expected: { alert: false },
    },
  ];

  for (const { title, threshold, alerted, hysteresis, onHand, delta, expected } of cases) {
    it(title, () => {
      const stock = stockOf({ levels: [level(1, onHand)], lowStockThreshold: threshold, lowStockAlert: alerted });
      const change = changeOf(stock.adjust(1, delta, policy(hysteresis)));
      expect(change.steps[0]?.signal).to.deep.equal(expected.signal);
      expect(change.after.product.stock.lowStockAlert).to.equal(expected.alert);
      expectLedgerKept(change);
    });
  }

  it('signals what is available after: on hand less what is held and backordered', () => {
    const stock = stockOf({ levels: [level(1, 6, 1)], lowStockThreshold: 5, backorderLimit: 5 });
    const held = stock.hold({ quantity: 7, allowBackorder: true }, [], 'priority', policy());
    if (isRefusal(held)) expect.fail(`refused: ${held.status}`);
    expect(held.change.steps[0]?.signal).to.deep.equal(low(-2, 5));
    expectLedgerKept(held.change);
  });

  it('counts units on their way out of available, so sending a transfer can turn a product low', () => {
    const stock = stockOf({ levels: [level(1, 5), level(2, 0)], lowStockThreshold: 4 });
    const sent = changeOf(stock.sendTransfer(transfer(1, 2, 2), policy()));
    expect(sent.steps[0]?.signal).to.deep.equal(low(3, 4));
  });
});

describe('ProductStock.removal', () => {
  const cases: { title: string; stock: StockSetup; expected: RemovalRefusal | undefined }[] = [
    {
      title: 'allows removing a product with stock but nothing held, backordered or on its way',
      stock: { levels: [level(1, 5), level(2, 0)] },
      expected: undefined,
    },
    { title: 'allows removing a product with no level at all', stock: { levels: [] }, expected: undefined },
    {
      title: 'refuses while units are held, saying how many',
      stock: { levels: [level(1, 5, 2)] },
      expected: { status: 'in-use', held: 2 },
    },
    {
      title: 'refuses while units are backordered, counting them as held',
      stock: { levels: [level(1, 0)], backordered: 3, backorderLimit: 3 },
      expected: { status: 'in-use', held: 3 },
    },
    {
      title: 'counts held and backordered units together',
      stock: { levels: [level(1, 5, 5)], backordered: 1, backorderLimit: 1 },
      expected: { status: 'in-use', held: 6 },
    },
    {
      title: 'refuses while units are on their way between locations, with none held',
      stock: { levels: [level(1, 0), level(2, 0, 0, 4)] },
      expected: { status: 'in-use', held: 0 },
    },
  ];

  for (const { title, stock, expected } of cases) {
    it(title, () => expect(stockOf(stock).removal()).to.deep.equal(expected));
  }
});

describe('StockChange.followedBy', () => {
  it('joins an arrival and the fills it causes: steps, movements and fills in order', () => {
    const stock = stockOf({ levels: [level(1, 0)], backordered: 3, backorderLimit: 3, sequence: 9 });
    expect(stock.fillsOnArrival(4)).to.equal(true);
    const arrival = changeOf(stock.adjust(1, 4, policy()));
    const first = arrival.after.fill(1, [{ reservationId: 'r-1', quantity: 1 }], policy());
    const second = first.after.fill(1, [{ reservationId: 'r-2', quantity: 2 }], policy());
    const joined = arrival.followedBy(first).followedBy(second);
    expect(joined.before).to.equal(stock);
    expect(joined.after).to.equal(second.after);
    expect(joined.steps).to.deep.equal([...arrival.steps, ...first.steps, ...second.steps]);
    expect(joined.fills).to.deep.equal([
      { reservationId: 'r-1', locationId: 1, quantity: 1 },
      { reservationId: 'r-2', locationId: 1, quantity: 2 },
    ]);
    expect(joined.movements.map((movement) => [movement.kind, movement.sequence])).to.deep.equal([
      ['adjusted', 10],
      ['backorder-filled', 11],
      ['backorder-filled', 12],
    ]);
    expectLedgerKept(joined);
  });

  it('keeps a change as it is after, or before, a change of nothing', () => {
    const stock = stockOf({ levels: [level(1, 5)] });
    const change = changeOf(stock.adjust(1, -1, policy()));
    for (const joined of [
      StockChange.none(stock).followedBy(change),
      change.followedBy(StockChange.none(change.after)),
    ]) {
      expect(joined.before).to.equal(stock);
      expect(joined.after).to.equal(change.after);
      expect(joined.steps).to.deep.equal(change.steps);
    }
  });

  it('is no thenable: an async use case answers it as it is', async () => {
    const change = changeOf(stockOf({ levels: [level(1, 5)] }).adjust(1, 1, policy()));
    expect(await Promise.resolve(change)).to.equal(change);
  });

  const refused: { title: string; next: (first: StockChange) => StockChange }[] = [
    {
      title: 'refuses a change of the stock the first started from',
      next: (first) => changeOf(first.before.adjust(1, 1, policy())),
    },
    {
      title: 'refuses a change of a stock equal to where the first ended, but not it',
      next: (first) => {
        const { product, levels, sequence } = first.after;
        return changeOf(ProductStock.of(product, levels, sequence).adjust(1, 1, policy()));
      },
    },
  ];

  for (const { title, next } of refused) {
    it(title, () => {
      const first = changeOf(stockOf({ levels: [level(1, 5)] }).adjust(1, 1, policy()));
      expect(() => first.followedBy(next(first))).to.throw(
        'A change can only follow the change whose stock it started from.',
      );
    });
  }
});

describe('ProductStock.of and its stock', () => {
  it('keeps its levels in location id order, and answers an all-zero level where it has none', () => {
    const stock = stockOf({ levels: [level(3, 1), level(1, 2), level(2, 0, 0, 4)] });
    expect(stock.levels.map((each) => each.locationId)).to.deep.equal([1, 2, 3]);
    expect(stock.levelAt(9)).to.deep.equal(level(9, 0));
  });

  it('refuses a sequence that is not a ledger’s', () => {
    const { product } = stockOf({ levels: [] });
    for (const sequence of [-1, 1.5, Number.NaN]) {
      expect(() => ProductStock.of(product, [], sequence), String(sequence)).to.throw(RangeError);
    }
  });

  it('opens a new product’s ledger with its stock arriving at the default location, as movement 1', () => {
    expect(ProductStock.opening({ quantityInStock: 12 })).to.deep.equal({
      kind: 'created',
      locationId: DEFAULT_LOCATION_ID,
      quantityDelta: 12,
      reservedDelta: 0,
      committedDelta: 0,
      qualityControlDelta: 0,
      damagedDelta: 0,
      quantityAfter: 12,
      reservedAfter: 0,
      reasonCode: 'created',
      onHand: 12,
      reserved: 0,
      committed: 0,
      qualityControl: 0,
      damaged: 0,
      sequence: 1,
    });
  });

  it('starts a new product’s stock at the default location, at its opening movement', () => {
    const { product } = stockOf({ levels: [level(DEFAULT_LOCATION_ID, 12)], version: 1 });
    const stock = ProductStock.ofNew(product);
    expect(stock.levels).to.deep.equal([level(DEFAULT_LOCATION_ID, 12)]);
    expect(stock.sequence).to.equal(ProductStock.opening(product).sequence);
  });

  it('takes the product as its details were just changed, but only the same product', () => {
    const stock = stockOf({ levels: [level(1, 5)] });
    const other = stockOf({ levels: [level(1, 5)], version: 4 }).product;
    expect(stock.withProduct(other).product).to.equal(other);
    expect(stock.withProduct(other).levels).to.equal(stock.levels);
    expect(() => stock.withProduct(Product.of(PRODUCT_ID + 1, other.details, 1))).to.throw(
      `Product ${PRODUCT_ID + 1} is not product ${PRODUCT_ID}.`,
    );
  });
});

describe('locationIsEmpty', () => {
  const cases: { title: string; levels: LocationLevel[]; empty: boolean }[] = [
    { title: 'is empty with no level there', levels: [], empty: true },
    { title: 'is empty when every level there is all zero', levels: [level(2, 0), level(2, 0)], empty: true },
    { title: 'is not empty with units on hand', levels: [level(2, 0), level(2, 1)], empty: false },
    { title: 'is not empty with units held', levels: [level(2, 1, 1)], empty: false },
    { title: 'is not empty with units on their way there', levels: [level(2, 0, 0, 1)], empty: false },
  ];

  for (const { title, levels, empty } of cases) {
    it(title, () => expect(locationIsEmpty(levels)).to.equal(empty));
  }
});
