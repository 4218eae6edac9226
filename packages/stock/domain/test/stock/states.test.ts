import { expect } from 'chai';
import {
  type AdjustmentOptions,
  isRefusal,
  type LevelAdjustmentRefusal,
  levelAvailable,
  levelIsValid,
  type LocationLevel,
  type ReturnDisposition,
  type ReturnRefusal,
  type ShipmentRefusal,
  type StateChangeRefusal,
  STOCK_MAX,
  type StockChange,
  type UnitState,
} from '../../src';
import { changeOf, expectLedgerKept, level, location, moves, policy, type StockSetup, stockOf } from './support';

/** What a verb answered: the level at `locationId` after, with its movements; or the refusal. */
type Expected<Refusal> = { readonly level: LocationLevel; readonly moves: ReturnType<typeof moves> } | Refusal;

/** Checks a verb's answer against a case: the refusal as it is, or the level after, its movements and the ledger. */
function expectAnswer<Refusal extends object>(
  answer: StockChange | Refusal,
  locationId: number,
  expected: Expected<Refusal>,
): void {
  if (isRefusal(answer) || isRefusal(expected)) {
    expect(answer).to.deep.equal(expected);
    return;
  }
  const change = answer as StockChange;
  const { level: after, moves: movements } = expected as Exclude<Expected<Refusal>, Refusal>;
  expect(change.after.levelAt(locationId)).to.deep.equal(after);
  expect(moves(change)).to.deep.equal(movements);
  expect(change.steps).to.have.length(1);
  expectLedgerKept(change);
}

describe('a level’s named states', () => {
  const cases: { title: string; level: LocationLevel; available: number; valid: boolean }[] = [
    {
      title: 'is available for what no state sets aside',
      level: level(1, 10, 1, 4, { committed: 2, qualityControl: 3, damaged: 1 }),
      available: 3,
      valid: true,
    },
    {
      title: 'is valid with every unit on hand set aside',
      level: level(1, 4, 1, 0, { committed: 1, qualityControl: 1, damaged: 1 }),
      available: 0,
      valid: true,
    },
    {
      title: 'is invalid with one unit more set aside than on hand',
      level: level(1, 4, 1, 0, { committed: 2, qualityControl: 1, damaged: 1 }),
      available: -1,
      valid: false,
    },
    {
      title: 'is invalid with committed below 0',
      level: level(1, 4, 0, 0, { committed: -1 }),
      available: 5,
      valid: false,
    },
    {
      title: 'is invalid with quality control below 0',
      level: level(1, 4, 0, 0, { qualityControl: -1 }),
      available: 5,
      valid: false,
    },
    { title: 'is invalid with damaged below 0', level: level(1, 4, 0, 0, { damaged: -1 }), available: 5, valid: false },
    { title: 'does not count units on their way', level: level(1, 0, 0, 9), available: 0, valid: true },
  ];

  for (const { title, level: each, available, valid } of cases) {
    it(title, () => {
      expect(levelAvailable(each)).to.equal(available);
      expect(levelIsValid(each)).to.equal(valid);
    });
  }

  it('holds only from what no state sets aside', () => {
    const stock = stockOf({ levels: [level(1, 6, 1, 0, { committed: 2, qualityControl: 1, damaged: 1 })] });
    expect(stock.product.availableQuantity).to.equal(1);
    expect(stock.hold({ quantity: 2 }, [], 'priority', policy())).to.deep.equal({ status: 'short', available: 1 });
    const held = stock.hold({ quantity: 1 }, [], 'priority', policy());
    if (isRefusal(held)) expect.fail(`refused: ${held.status}`);
    expectLedgerKept(held.change);
  });

  it('refuses a product with units committed to paid orders as in use, counting them as held', () => {
    expect(stockOf({ levels: [level(1, 5, 1, 0, { committed: 2 })] }).removal()).to.deep.equal({
      status: 'in-use',
      held: 3,
    });
  });

  it('lets a product with units in quality control or damaged be removed: nobody holds them', () => {
    expect(stockOf({ levels: [level(1, 5, 0, 0, { qualityControl: 2, damaged: 1 })] }).removal()).to.equal(undefined);
  });

  it('refuses a PUT below what every state sets aside at the default location, and allows exactly that', () => {
    const stock = stockOf({ levels: [level(1, 9, 1, 0, { committed: 2, qualityControl: 1, damaged: 1 })] });
    expect(stock.replace(4, policy())).to.deep.equal({
      status: 'below-reserved',
      quantityInStock: 9,
      reservedQuantity: 1,
    });
    expectLedgerKept(changeOf(stock.replace(5, policy())));
  });
});

describe('ProductStock.ship', () => {
  const exceeds = (committed: number): ShipmentRefusal => ({ status: 'exceeds-committed', committed });
  const cases: {
    title: string;
    stock: StockSetup;
    locationId: number;
    quantity: number;
    expected: Expected<ShipmentRefusal>;
  }[] = [
    {
      title: 'ships exactly the units committed there: on hand and committed down together',
      stock: { levels: [level(1, 8, 2, 0, { committed: 3 }), level(2, 4, 0, 0, { committed: 4 })] },
      locationId: 1,
      quantity: 3,
      expected: {
        level: level(1, 5, 2),
        moves: [{ kind: 'shipped', locationId: 1, quantityDelta: -3, reservedDelta: 0, committedDelta: -3 }],
      },
    },
    {
      title: 'refuses one unit more than is committed there, saying how many are, though more are on hand',
      stock: { levels: [level(1, 8, 2, 0, { committed: 3 }), level(2, 4, 0, 0, { committed: 4 })] },
      locationId: 1,
      quantity: 4,
      expected: exceeds(3),
    },
    {
      title: 'ships part of what is committed, leaving the rest committed',
      stock: { levels: [level(1, 5, 0, 0, { committed: 5 })] },
      locationId: 1,
      quantity: 2,
      expected: {
        level: level(1, 3, 0, 0, { committed: 3 }),
        moves: [{ kind: 'shipped', locationId: 1, quantityDelta: -2, reservedDelta: 0, committedDelta: -2 }],
      },
    },
    {
      title: 'refuses at a location where nothing is committed, however much is available',
      stock: { levels: [level(1, 9)] },
      locationId: 1,
      quantity: 1,
      expected: exceeds(0),
    },
    {
      title: 'refuses at a location the product has no level at',
      stock: { levels: [level(1, 5, 0, 0, { committed: 5 })] },
      locationId: 2,
      quantity: 1,
      expected: exceeds(0),
    },
  ];

  for (const { title, stock, locationId, quantity, expected } of cases) {
    it(title, () => expectAnswer(stockOf(stock).ship(locationId, quantity, policy()), locationId, expected));
  }
});

describe('ProductStock.receiveReturn', () => {
  const aboveMaximum = (available: number): ReturnRefusal => ({ status: 'above-maximum', available });
  const returned = (deltas: { quantityDelta: number } & Record<string, number>) => [
    { kind: 'returned', locationId: 1, reservedDelta: 0, ...deltas },
  ];
  const cases: {
    title: string;
    stock: StockSetup;
    quantity: number;
    disposition: ReturnDisposition;
    expected: Expected<ReturnRefusal>;
  }[] = [
    {
      title: 'restocks: on hand up, the units available again',
      stock: { levels: [level(1, 3, 1)] },
      quantity: 2,
      disposition: 'restock',
      expected: { level: level(1, 5, 1), moves: returned({ quantityDelta: 2 }) },
    },
    {
      title: 'sets units aside for quality control: on hand and quality control up together',
      stock: { levels: [level(1, 3, 1)] },
      quantity: 2,
      disposition: 'quality-control',
      expected: {
        level: level(1, 5, 1, 0, { qualityControl: 2 }),
        moves: returned({ quantityDelta: 2, qualityControlDelta: 2 }),
      },
    },
    {
      title: 'keeps damaged units apart: on hand and damaged up together',
      stock: { levels: [level(1, 3, 1, 0, { damaged: 1 })] },
      quantity: 2,
      disposition: 'damaged',
      expected: { level: level(1, 5, 1, 0, { damaged: 3 }), moves: returned({ quantityDelta: 2, damagedDelta: 2 }) },
    },
    {
      title: 'records missing units with a movement that moves nothing',
      stock: { levels: [level(1, 3, 1)] },
      quantity: 2,
      disposition: 'missing',
      expected: { level: level(1, 3, 1), moves: returned({ quantityDelta: 0 }) },
    },
    {
      title: 'restocks at a location the product has no level at, creating it',
      stock: { levels: [level(2, 3)] },
      quantity: 1,
      disposition: 'restock',
      expected: { level: level(1, 1), moves: returned({ quantityDelta: 1 }) },
    },
    {
      title: 'takes the product to exactly STOCK_MAX',
      stock: { levels: [level(1, STOCK_MAX - 2)] },
      quantity: 2,
      disposition: 'damaged',
      expected: {
        level: level(1, STOCK_MAX, 0, 0, { damaged: 2 }),
        moves: returned({ quantityDelta: 2, damagedDelta: 2 }),
      },
    },
    {
      title: 'refuses one unit above STOCK_MAX, saying the stock as it is',
      stock: { levels: [level(1, STOCK_MAX - 2)] },
      quantity: 3,
      disposition: 'restock',
      expected: aboveMaximum(STOCK_MAX - 2),
    },
    {
      title: 'records missing units even at STOCK_MAX: nothing arrives',
      stock: { levels: [level(1, STOCK_MAX)] },
      quantity: 3,
      disposition: 'missing',
      expected: { level: level(1, STOCK_MAX), moves: returned({ quantityDelta: 0 }) },
    },
  ];

  for (const { title, stock, quantity, disposition, expected } of cases) {
    it(title, () => expectAnswer(stockOf(stock).receiveReturn(1, quantity, disposition, policy()), 1, expected));
  }

  it('says the return’s code, `returned`, on its movement', () => {
    const change = changeOf(stockOf({ levels: [level(1, 1)] }).receiveReturn(1, 1, 'missing', policy()));
    expect(change.movements.map((movement) => movement.reasonCode)).to.deep.equal(['returned']);
  });

  it('fills backorders only with restocked units: they are the ones that arrive available', () => {
    const stock = stockOf({ levels: [level(1, 0)], backordered: 2, backorderLimit: 2 });
    const restocked = changeOf(stock.receiveReturn(1, 2, 'restock', policy()));
    const inspected = changeOf(stock.receiveReturn(1, 2, 'quality-control', policy()));
    expect(restocked.after.fill(1, [{ reservationId: 'r-1', quantity: 2 }], policy()).fills).to.deep.equal([
      { reservationId: 'r-1', locationId: 1, quantity: 2 },
    ]);
    expect(inspected.after.fill(1, [{ reservationId: 'r-1', quantity: 2 }], policy()).fills).to.deep.equal([]);
  });
});

describe('ProductStock.changeState', () => {
  const short = (from: UnitState, holds: number): StateChangeRefusal => ({ status: 'state-short', from, holds });
  const changed = (deltas: Record<string, number>) => [
    { kind: 'state-changed', locationId: 1, quantityDelta: 0, reservedDelta: 0, ...deltas },
  ];
  /** 10 on hand: 1 held, 2 committed, 3 in quality control, 2 damaged, so 2 available. */
  const mixed: StockSetup = { levels: [level(1, 10, 1, 0, { committed: 2, qualityControl: 3, damaged: 2 })] };
  const after = (states: { qualityControl: number; damaged: number }) =>
    level(1, 10, 1, 0, { committed: 2, ...states });

  const cases: {
    title: string;
    quantity: number;
    from: UnitState;
    to: UnitState;
    expected: Expected<StateChangeRefusal>;
  }[] = [
    {
      title: 'sets exactly the available units aside for quality control',
      quantity: 2,
      from: 'available',
      to: 'quality-control',
      expected: { level: after({ qualityControl: 5, damaged: 2 }), moves: changed({ qualityControlDelta: 2 }) },
    },
    {
      title: 'refuses one available unit more, though more are on hand: held and committed ones are not available',
      quantity: 3,
      from: 'available',
      to: 'quality-control',
      expected: short('available', 2),
    },
    {
      title: 'marks exactly the available units damaged',
      quantity: 2,
      from: 'available',
      to: 'damaged',
      expected: { level: after({ qualityControl: 3, damaged: 4 }), moves: changed({ damagedDelta: 2 }) },
    },
    {
      title: 'passes exactly the units in quality control, making them available',
      quantity: 3,
      from: 'quality-control',
      to: 'available',
      expected: { level: after({ qualityControl: 0, damaged: 2 }), moves: changed({ qualityControlDelta: -3 }) },
    },
    {
      title: 'refuses one unit more than quality control holds',
      quantity: 4,
      from: 'quality-control',
      to: 'available',
      expected: short('quality-control', 3),
    },
    {
      title: 'finds units in quality control damaged',
      quantity: 3,
      from: 'quality-control',
      to: 'damaged',
      expected: {
        level: after({ qualityControl: 0, damaged: 5 }),
        moves: changed({ qualityControlDelta: -3, damagedDelta: 3 }),
      },
    },
    {
      title: 'repairs exactly the damaged units, making them available',
      quantity: 2,
      from: 'damaged',
      to: 'available',
      expected: { level: after({ qualityControl: 3, damaged: 0 }), moves: changed({ damagedDelta: -2 }) },
    },
    {
      title: 'refuses one unit more than damaged holds',
      quantity: 3,
      from: 'damaged',
      to: 'quality-control',
      expected: short('damaged', 2),
    },
    {
      title: 'sends exactly the damaged units back to quality control',
      quantity: 2,
      from: 'damaged',
      to: 'quality-control',
      expected: {
        level: after({ qualityControl: 5, damaged: 0 }),
        moves: changed({ qualityControlDelta: 2, damagedDelta: -2 }),
      },
    },
  ];

  for (const { title, quantity, from, to, expected } of cases) {
    it(title, () => expectAnswer(stockOf(mixed).changeState(1, quantity, { from, to }, policy()), 1, expected));
  }

  it('refuses at a location the product has no level at: no state holds anything there', () => {
    expect(stockOf(mixed).changeState(2, 1, { from: 'available', to: 'damaged' }, policy())).to.deep.equal(
      short('available', 0),
    );
  });

  it('carries the reason code it was told, `correction` when none', () => {
    const stock = stockOf(mixed);
    const told = changeOf(stock.changeState(1, 1, { from: 'available', to: 'damaged' }, policy(), 'damaged'));
    const untold = changeOf(stock.changeState(1, 1, { from: 'available', to: 'damaged' }, policy()));
    expect([...told.movements, ...untold.movements].map((movement) => movement.reasonCode)).to.deep.equal([
      'damaged',
      'correction',
    ]);
  });

  it('throws on a change that is none (same state, or no units): the edge refuses those first', () => {
    const stock = stockOf(mixed);
    expect(() => stock.changeState(1, 1, { from: 'damaged', to: 'damaged' }, policy())).to.throw(RangeError);
    expect(() => stock.changeState(1, 0, { from: 'available', to: 'damaged' }, policy())).to.throw(RangeError);
  });

  it('turns a product low when units it had available go to quality control', () => {
    const stock = stockOf({ levels: [level(1, 5)], lowStockThreshold: 4 });
    const change = changeOf(stock.changeState(1, 2, { from: 'available', to: 'quality-control' }, policy()));
    expect(change.steps[0]?.signal).to.deep.equal({ event: 'stock.level.low', available: 3, threshold: 4 });
  });
});

describe('ProductStock.adjust in a state', () => {
  const belowMinimum = (available: number): LevelAdjustmentRefusal => ({ status: 'below-minimum', available });
  const adjusted = (deltas: { quantityDelta: number } & Record<string, number>) => [
    { kind: 'adjusted', locationId: 1, reservedDelta: 0, ...deltas },
  ];
  /** 10 on hand: 1 held, 2 committed, 3 in quality control, 2 damaged, so 2 available. */
  const mixed: StockSetup = { levels: [level(1, 10, 1, 0, { committed: 2, qualityControl: 3, damaged: 2 })] };
  const after = (onHand: number, states: { qualityControl: number; damaged: number }) =>
    level(1, onHand, 1, 0, { committed: 2, ...states });

  const cases: {
    title: string;
    delta: number;
    options: AdjustmentOptions;
    expected: Expected<LevelAdjustmentRefusal>;
  }[] = [
    {
      title: 'writes off exactly the damaged units: on hand and damaged down together',
      delta: -2,
      options: { state: 'damaged' },
      expected: {
        level: after(8, { qualityControl: 3, damaged: 0 }),
        moves: adjusted({ quantityDelta: -2, damagedDelta: -2 }),
      },
    },
    {
      title: 'refuses to write off one damaged unit more than there are, saying how many there are',
      delta: -3,
      options: { state: 'damaged' },
      expected: belowMinimum(2),
    },
    {
      title: 'takes exactly the units in quality control out',
      delta: -3,
      options: { state: 'quality-control' },
      expected: {
        level: after(7, { qualityControl: 0, damaged: 2 }),
        moves: adjusted({ quantityDelta: -3, qualityControlDelta: -3 }),
      },
    },
    {
      title: 'refuses one unit more than quality control holds',
      delta: -4,
      options: { state: 'quality-control' },
      expected: belowMinimum(3),
    },
    {
      title: 'adds units straight into damaged',
      delta: 4,
      options: { state: 'damaged' },
      expected: {
        level: after(14, { qualityControl: 3, damaged: 6 }),
        moves: adjusted({ quantityDelta: 4, damagedDelta: 4 }),
      },
    },
    {
      title: 'takes out exactly the available units, every state set aside kept',
      delta: -2,
      options: {},
      expected: { level: after(8, { qualityControl: 3, damaged: 2 }), moves: adjusted({ quantityDelta: -2 }) },
    },
    {
      title: 'refuses one available unit more: committed, quality-control and damaged units are not taken',
      delta: -3,
      options: { state: 'available' },
      expected: belowMinimum(2),
    },
  ];

  for (const { title, delta, options, expected } of cases) {
    it(title, () => expectAnswer(stockOf(mixed).adjust(1, delta, policy(), options), 1, expected));
  }

  it('refuses damaged units above STOCK_MAX as any arrival', () => {
    const stock = stockOf({ levels: [level(1, STOCK_MAX - 1)] });
    expect(stock.adjust(1, 2, policy(), { state: 'damaged' })).to.deep.equal({
      status: 'above-maximum',
      available: STOCK_MAX - 1,
    });
  });

  it('carries the reason code it was told, `correction` when none, and an import’s its kind', () => {
    const stock = stockOf(mixed);
    const codes = [
      stock.adjust(1, 1, policy(), { reasonCode: 'found' }),
      stock.adjust(1, 1, policy()),
      stock.adjust(1, 1, policy(), { kind: 'imported' }),
    ].map((answer) => changeOf(answer).movements[0]?.reasonCode);
    expect(codes).to.deep.equal(['found', 'correction', 'imported']);
  });
});

describe('ProductStock.releaseCommitted', () => {
  it('gives committed units back at exactly the locations named: committed down, available again', () => {
    const stock = stockOf({ levels: [level(1, 5, 0, 0, { committed: 3 }), level(2, 4, 1, 0, { committed: 2 })] });
    const change = stock.releaseCommitted(
      [
        { locationId: 1, quantity: 3 },
        { locationId: 2, quantity: 1 },
      ],
      policy(),
    );
    expect(moves(change)).to.deep.equal([
      { kind: 'released', locationId: 1, quantityDelta: 0, reservedDelta: 0, committedDelta: -3 },
      { kind: 'released', locationId: 2, quantityDelta: 0, reservedDelta: 0, committedDelta: -1 },
    ]);
    expect(change.after.levels).to.deep.equal([level(1, 5), level(2, 4, 1, 0, { committed: 1 })]);
    expect(change.after.product.availableQuantity).to.equal(stock.product.availableQuantity + 4);
    expectLedgerKept(change);
  });

  it('throws when asked for one unit more than is committed there: its caller named units the order never had', () => {
    const stock = stockOf({ levels: [level(1, 5, 0, 0, { committed: 3 })] });
    expect(() => stock.releaseCommitted([{ locationId: 1, quantity: 4 }], policy())).to.throw(/breaks the level/);
  });
});

describe('an order’s life in the ledger', () => {
  it('held at two locations, paid, shipped in parts, returned with each disposition: the ledger sums to every state', () => {
    const start = stockOf({ levels: [level(1, 10), level(2, 6)], sequence: 0 });
    const held = start.hold({ quantity: 12 }, [location(1, 0), location(2, 1)], 'priority', policy());
    if (isRefusal(held)) expect.fail(`refused: ${held.status}`);
    expect(held.plan.allocations).to.deep.equal([
      { locationId: 1, quantity: 10 },
      { locationId: 2, quantity: 2 },
    ]);
    let change = held.change;
    const then = (next: (stock: typeof start) => object) => {
      change = change.followedBy(changeOf(next(change.after)));
    };
    then((stock) => stock.settle(held.plan, 'committed', policy()));
    then((stock) => stock.ship(1, 4, policy()));
    then((stock) => stock.ship(2, 2, policy()));
    then((stock) => stock.ship(1, 6, policy()));
    then((stock) => stock.receiveReturn(1, 2, 'restock', policy()));
    then((stock) => stock.receiveReturn(1, 2, 'quality-control', policy()));
    then((stock) => stock.receiveReturn(2, 1, 'damaged', policy()));
    then((stock) => stock.receiveReturn(2, 1, 'missing', policy()));
    then((stock) => stock.changeState(1, 1, { from: 'quality-control', to: 'available' }, policy()));
    then((stock) => stock.adjust(2, -1, policy(), { state: 'damaged', reasonCode: 'damaged' }));

    expect(change.after.levels).to.deep.equal([level(1, 4, 0, 0, { qualityControl: 1 }), level(2, 4)]);
    const { product } = change.after;
    expect({
      quantityInStock: product.quantityInStock,
      committedQuantity: product.committedQuantity,
      qualityControlQuantity: product.qualityControlQuantity,
      damagedQuantity: product.damagedQuantity,
      availableQuantity: product.availableQuantity,
    }).to.deep.equal({
      quantityInStock: 8,
      committedQuantity: 0,
      qualityControlQuantity: 1,
      damagedQuantity: 0,
      availableQuantity: 7,
    });
    expect(change.movements.map((movement) => movement.reasonCode)).to.deep.equal([
      'reserved',
      'reserved',
      'committed',
      'committed',
      'shipped',
      'shipped',
      'shipped',
      'returned',
      'returned',
      'returned',
      'returned',
      'correction',
      'damaged',
    ]);
    expectLedgerKept(change);
  });
});
