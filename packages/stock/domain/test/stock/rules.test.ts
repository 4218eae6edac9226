import { expect } from 'chai';
import {
  ARRIVAL_FILLS,
  AVAILABLE,
  type Condition,
  COVERS_HOLDS,
  evaluate,
  holds,
  KEEPS_HOLDS,
  LEVEL_AVAILABLE,
  LEVEL_HAS_AVAILABLE,
  LEVEL_IS_EMPTY,
  LOW_STOCK,
  LOW_STOCK_STEADY,
  type LevelName,
  type LowStockCrossing,
  lowStockCrossing,
  type LowStockName,
  MOVES_STOCK,
  namesOf,
  STOCK_MAX,
  STOCK_STATE,
  type StockState,
  stockStateOf,
  type Values,
  WITHIN_STOCK_MAX,
} from '../../src';

/** A change's deltas, 0 unless told. */
const deltas = (moved: Partial<Record<string, number>>) => ({
  quantityDelta: 0,
  reservedDelta: 0,
  committedDelta: 0,
  qualityControlDelta: 0,
  damagedDelta: 0,
  ...moved,
});

describe('the stock rules at their boundaries', () => {
  /** A rule and its cases: what each is called, the values it is read at, and whether it holds there. */
  const rule = <N extends string>(name: string, condition: Condition<N>, cases: [string, Values<N>, boolean][]) =>
    cases.map(([title, values, expected]) => ({
      title: `${name} ${expected ? 'holds' : 'does not hold'} ${title}`,
      holds: () => holds(condition, values),
      expected,
    }));

  /** A level with `onHand` units, some set aside in states (none unless told). */
  const at = (onHand: number, states: Partial<Record<Exclude<LevelName, 'onHand'>, number>> = {}) => ({
    onHand,
    reserved: 0,
    committed: 0,
    qualityControl: 0,
    damaged: 0,
    incoming: 0,
    ...states,
  });

  const cases = [
    ...rule('KEEPS_HOLDS', KEEPS_HOLDS, [
      ['taking out down to exactly what is held', { ...at(5, { reserved: 2 }), delta: -3 }, true],
      ['taking out one unit more', { ...at(5, { reserved: 2 }), delta: -4 }, false],
      ['taking out down to exactly 0 with no holds', { ...at(5), delta: -5 }, true],
      ['taking out below 0', { ...at(5), delta: -6 }, false],
      ['taking out down to exactly what is committed', { ...at(5, { committed: 2 }), delta: -3 }, true],
      ['taking out one unit past what is committed', { ...at(5, { committed: 2 }), delta: -4 }, false],
      ['taking out down to exactly what is in quality control', { ...at(5, { qualityControl: 2 }), delta: -3 }, true],
      ['taking out one unit past quality control', { ...at(5, { qualityControl: 2 }), delta: -4 }, false],
      ['taking out down to exactly what is damaged', { ...at(5, { damaged: 2 }), delta: -3 }, true],
      ['taking out one unit past what is damaged', { ...at(5, { damaged: 2 }), delta: -4 }, false],
      [
        'taking out down to every state set aside together',
        { ...at(10, { reserved: 1, committed: 2, qualityControl: 3, damaged: 1 }), delta: -3 },
        true,
      ],
      [
        'taking out one unit past every state set aside together',
        { ...at(10, { reserved: 1, committed: 2, qualityControl: 3, damaged: 1 }), delta: -4 },
        false,
      ],
    ]),
    ...rule('WITHIN_STOCK_MAX', WITHIN_STOCK_MAX, [
      ['up to exactly STOCK_MAX', { quantityInStock: STOCK_MAX - 1, delta: 1 }, true],
      ['one above STOCK_MAX', { quantityInStock: STOCK_MAX - 1, delta: 2 }, false],
    ]),
    ...rule('COVERS_HOLDS', COVERS_HOLDS, [
      ['at exactly what is held', { ...at(9, { reserved: 2 }), quantity: 2 }, true],
      ['one below what is held', { ...at(9, { reserved: 2 }), quantity: 1 }, false],
      [
        'at exactly what every state sets aside',
        { ...at(9, { reserved: 1, committed: 1, qualityControl: 1, damaged: 1 }), quantity: 4 },
        true,
      ],
      [
        'one below what every state sets aside',
        { ...at(9, { reserved: 1, committed: 1, qualityControl: 1, damaged: 1 }), quantity: 3 },
        false,
      ],
    ]),
    ...rule('ARRIVAL_FILLS', ARRIVAL_FILLS, [
      ['for one unit arriving while backorders wait', { delta: 1, backorderedQuantity: 1 }, true],
      ['for nothing arriving', { delta: 0, backorderedQuantity: 1 }, false],
      ['for units leaving', { delta: -1, backorderedQuantity: 1 }, false],
      ['with no backorders', { delta: 1, backorderedQuantity: 0 }, false],
    ]),
    ...rule('LEVEL_IS_EMPTY', LEVEL_IS_EMPTY, [
      ['for a level all zero', at(0), true],
      ['with one unit on hand', at(1), false],
      ['with one unit held', at(1, { reserved: 1 }), false],
      ['with one unit committed', at(1, { committed: 1 }), false],
      ['with one unit in quality control', at(1, { qualityControl: 1 }), false],
      ['with one unit damaged', at(1, { damaged: 1 }), false],
      ['with one unit on its way', at(0, { incoming: 1 }), false],
    ]),
    ...rule('LEVEL_HAS_AVAILABLE', LEVEL_HAS_AVAILABLE, [
      ['with one unit no hold took', at(3, { reserved: 2 }), true],
      ['with every unit held', at(3, { reserved: 3 }), false],
      ['with every unit committed', at(3, { committed: 3 }), false],
      ['with every unit in quality control', at(3, { qualityControl: 3 }), false],
      ['with every unit damaged', at(3, { damaged: 3 }), false],
      ['with one unit in no state', at(4, { reserved: 1, committed: 1, qualityControl: 1 }), true],
      [
        'with every unit in one state or another',
        at(4, { reserved: 1, committed: 1, qualityControl: 1, damaged: 1 }),
        false,
      ],
      ['with units on their way only', at(0, { incoming: 4 }), false],
    ]),
    ...rule('MOVES_STOCK', MOVES_STOCK, [
      ['for nothing moved', deltas({}), false],
      ['for on hand moved', deltas({ quantityDelta: 1 }), true],
      ['for reserved moved', deltas({ reservedDelta: -1 }), true],
      ['for committed moved', deltas({ committedDelta: 1 }), true],
      ['for quality control moved', deltas({ qualityControlDelta: -1 }), true],
      ['for damaged moved', deltas({ damagedDelta: 1 }), true],
    ]),
  ];

  for (const { title, holds: check, expected } of cases) {
    it(title, () => expect(check()).to.equal(expected));
  }

  it('LEVEL_AVAILABLE is on hand less every state set aside, and 0 when all of it is', () => {
    const level = at(10, { reserved: 1, committed: 2, qualityControl: 3, damaged: 4, incoming: 7 });
    expect(evaluate(LEVEL_AVAILABLE, level)).to.equal(0);
    expect(evaluate(LEVEL_AVAILABLE, { ...level, onHand: 11 })).to.equal(1);
  });
});

describe('AVAILABLE and the stock state', () => {
  const cases: {
    title: string;
    product: Partial<Record<'committedQuantity' | 'qualityControlQuantity' | 'damagedQuantity', number>> & {
      quantityInStock: number;
      reservedQuantity: number;
      backorderedQuantity: number;
    };
    lowStockThreshold: number;
    available: number;
    state: StockState;
  }[] = [
    {
      title: 'is in stock at exactly the threshold',
      product: { quantityInStock: 9, reservedQuantity: 2, backorderedQuantity: 2 },
      lowStockThreshold: 5,
      available: 5,
      state: 'in',
    },
    {
      title: 'is low one below the threshold',
      product: { quantityInStock: 9, reservedQuantity: 2, backorderedQuantity: 3 },
      lowStockThreshold: 5,
      available: 4,
      state: 'low',
    },
    {
      title: 'is low at one unit available',
      product: { quantityInStock: 1, reservedQuantity: 0, backorderedQuantity: 0 },
      lowStockThreshold: 5,
      available: 1,
      state: 'low',
    },
    {
      title: 'is out at nothing available',
      product: { quantityInStock: 3, reservedQuantity: 3, backorderedQuantity: 0 },
      lowStockThreshold: 5,
      available: 0,
      state: 'out',
    },
    {
      title: 'is out with every unit committed, in quality control or damaged',
      product: {
        quantityInStock: 6,
        reservedQuantity: 0,
        committedQuantity: 3,
        qualityControlQuantity: 2,
        damagedQuantity: 1,
        backorderedQuantity: 0,
      },
      lowStockThreshold: 5,
      available: 0,
      state: 'out',
    },
    {
      title: 'is low with one unit in no state, one below the threshold 2',
      product: {
        quantityInStock: 7,
        reservedQuantity: 1,
        committedQuantity: 2,
        qualityControlQuantity: 2,
        damagedQuantity: 1,
        backorderedQuantity: 0,
      },
      lowStockThreshold: 2,
      available: 1,
      state: 'low',
    },
    {
      title: 'is out below 0 while backorders wait',
      product: { quantityInStock: 3, reservedQuantity: 3, backorderedQuantity: 2 },
      lowStockThreshold: 5,
      available: -2,
      state: 'out',
    },
    {
      title: 'is never low with a threshold of 0',
      product: { quantityInStock: 1, reservedQuantity: 0, backorderedQuantity: 0 },
      lowStockThreshold: 0,
      available: 1,
      state: 'in',
    },
  ];

  for (const { title, product: given, lowStockThreshold, available, state } of cases) {
    it(title, () => {
      const product = { committedQuantity: 0, qualityControlQuantity: 0, damagedQuantity: 0, ...given };
      expect(evaluate(AVAILABLE, product), 'available').to.equal(available);
      expect(stockStateOf({ ...product, lowStockThreshold })).to.equal(state);
    });
  }
});

describe('lowStockCrossing', () => {
  const low: LowStockCrossing = { alert: true, event: 'stock.level.low' };
  const restored: LowStockCrossing = { alert: false, event: 'stock.level.restored' };
  const steady = (alert: boolean): LowStockCrossing => ({ alert });

  const cases: { title: string; values: Values<LowStockName>; expected: LowStockCrossing }[] = [
    {
      title: 'turns low one below the threshold',
      values: { available: 4, lowStockThreshold: 5, lowStockAlert: false, hysteresis: 1 },
      expected: low,
    },
    {
      title: 'does not turn low at exactly the threshold',
      values: { available: 5, lowStockThreshold: 5, lowStockAlert: false, hysteresis: 1 },
      expected: steady(false),
    },
    {
      title: 'turns low below 0 too',
      values: { available: -3, lowStockThreshold: 5, lowStockAlert: false, hysteresis: 1 },
      expected: low,
    },
    {
      title: 'stays low, saying nothing, one below threshold + hysteresis 1',
      values: { available: 5, lowStockThreshold: 5, lowStockAlert: true, hysteresis: 1 },
      expected: steady(true),
    },
    {
      title: 'is restored at exactly threshold + hysteresis 1',
      values: { available: 6, lowStockThreshold: 5, lowStockAlert: true, hysteresis: 1 },
      expected: restored,
    },
    {
      title: 'stays low one below threshold + hysteresis 2',
      values: { available: 6, lowStockThreshold: 5, lowStockAlert: true, hysteresis: 2 },
      expected: steady(true),
    },
    {
      title: 'is restored at exactly threshold + hysteresis 2',
      values: { available: 7, lowStockThreshold: 5, lowStockAlert: true, hysteresis: 2 },
      expected: restored,
    },
    {
      title: 'is restored above threshold + hysteresis',
      values: { available: 40, lowStockThreshold: 5, lowStockAlert: true, hysteresis: 2 },
      expected: restored,
    },
    {
      title: 'says nothing with a threshold of 0, at 0 available',
      values: { available: 0, lowStockThreshold: 0, lowStockAlert: false, hysteresis: 1 },
      expected: steady(false),
    },
    {
      title: 'says nothing with a threshold of 0, below 0 available',
      values: { available: -1, lowStockThreshold: 0, lowStockAlert: false, hysteresis: 1 },
      expected: steady(false),
    },
    {
      title: 'quietly clears an alert whose threshold was turned off, wherever available is',
      values: { available: 0, lowStockThreshold: 0, lowStockAlert: true, hysteresis: 1 },
      expected: steady(false),
    },
  ];

  for (const { title, values, expected } of cases) {
    it(title, () => expect(lowStockCrossing(values)).to.deep.equal(expected));
  }

  it('is steady exactly when it changes neither the alert nor says anything, and crosses at most one way', () => {
    for (const lowStockThreshold of [0, 1, 5])
      for (const hysteresis of [1, 2])
        for (const lowStockAlert of [false, true])
          for (let available = -2; available <= lowStockThreshold + hysteresis + 1; available++) {
            const values = { available, lowStockThreshold, lowStockAlert, hysteresis };
            const crossing = lowStockCrossing(values);
            const label = JSON.stringify(values);
            expect(holds(LOW_STOCK_STEADY, values), label).to.equal(
              crossing.event === undefined && crossing.alert === lowStockAlert,
            );
            const crossings = Object.values(LOW_STOCK).filter((rule) => holds(rule, values));
            expect(crossings.length, label).to.be.at.most(1);
          }
  });
});

describe('the names each rule reads', () => {
  const cases: { rule: string; condition: Condition<string>; names: string[] }[] = [
    {
      rule: 'KEEPS_HOLDS',
      condition: KEEPS_HOLDS,
      names: ['onHand', 'delta', 'reserved', 'committed', 'qualityControl', 'damaged'],
    },
    { rule: 'WITHIN_STOCK_MAX', condition: WITHIN_STOCK_MAX, names: ['quantityInStock', 'delta'] },
    {
      rule: 'COVERS_HOLDS',
      condition: COVERS_HOLDS,
      names: ['quantity', 'reserved', 'committed', 'qualityControl', 'damaged'],
    },
    { rule: 'ARRIVAL_FILLS', condition: ARRIVAL_FILLS, names: ['delta', 'backorderedQuantity'] },
    {
      rule: 'LEVEL_IS_EMPTY',
      condition: LEVEL_IS_EMPTY,
      names: ['onHand', 'reserved', 'committed', 'qualityControl', 'damaged', 'incoming'],
    },
    {
      rule: 'LEVEL_HAS_AVAILABLE',
      condition: LEVEL_HAS_AVAILABLE,
      names: ['onHand', 'reserved', 'committed', 'qualityControl', 'damaged'],
    },
    {
      rule: 'STOCK_STATE.low',
      condition: STOCK_STATE.low,
      names: ['available', 'lowStockThreshold'],
    },
    {
      rule: 'LOW_STOCK_STEADY',
      condition: LOW_STOCK_STEADY,
      names: ['lowStockAlert', 'lowStockThreshold', 'available', 'hysteresis'],
    },
  ];

  for (const { rule, condition, names } of cases) {
    it(`${rule} reads ${names.join(', ')}`, () => expect(namesOf(condition)).to.deep.equal(names));
  }
});
